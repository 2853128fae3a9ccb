//! What bellperson's ProvingAssignment holds after synthesis, rebuilt from a recorded circuit
//! and a witness: the per-constraint evaluations a, b, c (A·z, B·z, C·z), the input and aux
//! assignments, and the density bitmaps enforce() marks.

use crate::field::FR;
use crate::r1cs::{Csr, Fr, R1cs};

/// The densities as bellperson's DensityTracker keeps them: u64 words, bit i of word i / 64
/// (LSB first), with their popcounts. Bit lengths: num_aux, num_inputs, num_aux.
pub struct Densities {
    pub a_aux: Vec<u64>,
    pub a_aux_popcount: usize,
    pub b_inp: Vec<u64>,
    pub b_inp_popcount: usize,
    pub b_aux: Vec<u64>,
    pub b_aux_popcount: usize,
}

fn count(words: &[u64]) -> usize {
    words.iter().map(|w| w.count_ones() as usize).sum()
}

impl Densities {
    /// As enforce() marks them: aux j in A for a_aux; input i and aux j in B for b_inp / b_aux
    /// (any row; C marks nothing).
    pub fn of(r: &R1cs) -> Self {
        let ni = r.num_inputs;
        let mut a_aux = vec![0u64; r.num_aux.div_ceil(64)];
        let mut b_inp = vec![0u64; ni.div_ceil(64)];
        let mut b_aux = vec![0u64; r.num_aux.div_ceil(64)];
        let set = |w: &mut [u64], i: usize| w[i / 64] |= 1u64 << (i % 64);
        for &c in &r.a.col {
            let c = c as usize;
            if c >= ni {
                set(&mut a_aux, c - ni);
            }
        }
        for &c in &r.b.col {
            let c = c as usize;
            if c < ni {
                set(&mut b_inp, c);
            } else {
                set(&mut b_aux, c - ni);
            }
        }
        Densities {
            a_aux_popcount: count(&a_aux),
            b_inp_popcount: count(&b_inp),
            b_aux_popcount: count(&b_aux),
            a_aux,
            b_inp,
            b_aux,
        }
    }
}

/// One circuit's assignment, all in Montgomery form.
#[derive(Debug)]
pub struct Synthesized {
    /// ONE and the public inputs.
    pub inputs: Vec<Fr>,
    pub aux: Vec<Fr>,
    /// A·z, B·z, C·z: one per constraint (input constraints included).
    pub a: Vec<Fr>,
    pub b: Vec<Fr>,
    pub c: Vec<Fr>,
}

fn eval_row(m: &Csr, k: usize, z: &[Fr]) -> Fr {
    let mut acc = FR.zero();
    for (col, v) in m.row(k) {
        // bellperson skips the multiplication for coefficient one; the sum is the same.
        let t = if *v == FR.one { z[col] } else { FR.mul(v, &z[col]) };
        acc = FR.add(&acc, &t);
    }
    acc
}

/// Evaluates the circuit at a witness of canonical values z = (ONE, inputs…, aux…) and checks
/// that it satisfies every constraint.
pub fn synthesize(r: &R1cs, canonical: &[Fr]) -> Result<Synthesized, String> {
    if canonical.len() != r.num_columns() {
        return Err(format!(
            "the witness has {} values but the circuit has {} inputs (ONE included) + {} aux = {}",
            canonical.len(),
            r.num_inputs,
            r.num_aux,
            r.num_columns()
        ));
    }
    let z: Vec<Fr> = canonical.iter().map(|v| FR.to_mont(v)).collect();
    let n = r.num_constraints;
    let (mut a, mut b, mut c) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    for k in 0..n {
        let (ak, bk, ck) = (eval_row(&r.a, k, &z), eval_row(&r.b, k, &z), eval_row(&r.c, k, &z));
        if FR.mul(&ak, &bk) != ck {
            return Err(format!(
                "the witness does not satisfy constraint {k} of {n}: A·z × B·z ≠ C·z"
            ));
        }
        a.push(ak);
        b.push(bk);
        c.push(ck);
    }
    let aux = z[r.num_inputs..].to_vec();
    let mut inputs = z;
    inputs.truncate(r.num_inputs);
    Ok(Synthesized { inputs, aux, a, b, c })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::r1cs;

    fn cubic() -> R1cs {
        // x^3 + x + 5 = out: aux (x, x2, x3) = columns 2, 3, 4; input out = column 1.
        let one = FR.one;
        let five = FR.to_mont(&[5, 0, 0, 0]);
        let a = vec![
            vec![(2u32, one)],
            vec![(3, one)],
            vec![(0, five), (2, one), (4, one)],
            vec![(0, one)],
            vec![(1, one)],
        ];
        let b = vec![vec![(2u32, one)], vec![(2, one)], vec![(0, one)], vec![], vec![]];
        let c = vec![vec![(3u32, one)], vec![(4, one)], vec![(1, one)], vec![], vec![]];
        r1cs::parse(&r1cs::tests::image(2, 3, [&a, &b, &c]), "cubic").unwrap()
    }

    #[test]
    fn evaluates_and_checks() {
        let r = cubic();
        let w = |v: u64| [v, 0, 0, 0];
        let s = synthesize(&r, &[w(1), w(35), w(3), w(9), w(27)]).unwrap();
        assert_eq!(s.inputs.len(), 2);
        assert_eq!(s.aux.len(), 3);
        assert_eq!(s.a.len(), 5);
        assert_eq!(FR.from_mont(&s.c[2]), w(35));
        assert_eq!(FR.from_mont(&s.a[4]), w(35)); // the input constraint for `out`
        assert_eq!(s.b[4], FR.zero());
        assert!(synthesize(&r, &[w(1), w(36), w(3), w(9), w(27)])
            .unwrap_err()
            .contains("constraint 2"));
        assert!(synthesize(&r, &[w(1)]).is_err());

        let d = Densities::of(&r);
        assert_eq!(d.a_aux, vec![0b111]);
        assert_eq!(d.a_aux_popcount, 3);
        assert_eq!(d.b_inp, vec![0b01]);
        assert_eq!(d.b_aux, vec![0b001]);
        assert_eq!(d.b_aux_popcount, 1);
    }
}
