//! The parts of snarkpipe-abi-check that need no library: BLS12-381 field arithmetic, the
//! recorded-circuit and witness file formats, bellperson-style synthesis, proof encoding.

pub mod curve;
pub mod field;
pub mod r1cs;
pub mod synth;
pub mod wtns;
