#!/usr/bin/env node
// Known answers for snarkpipe's Poseidon over the BLS12-381 scalar field (Filecoin's neptune
// parameters), from an independent implementation: @noble/curves' abstract/poseidon
// (grainGenConstants + poseidon, version pinned in package.json / package-lock.json).
//
// Usage:   node poseidon_vectors.mjs <seed-hex> <count> <arity>:<partial-rounds>[,...]
//          e.g. node poseidon_vectors.mjs 00ff 4 2:55,4:56,8:57,11:57
// Install: (cd tests/interop && npm ci)
//
// For each arity a (width t = a + 1, 8 full rounds, the given partial rounds, x^5 S-box) it
// prints noble's Grain-LFSR round constants for neptune's seed, neptune's MDS matrix built
// here, `count` permutations of random states through noble's permutation with those, and
// `count` hashes of random inputs plus the hash of [0, 1, ..., a - 1] (neptune's test input).
// A hash, as snarkpipe (and Filecoin's neptune) defines it, permutes [2^a - 1 (the
// Merkle-tree domain tag), x_1, ..., x_a] and keeps element 1.
//
// neptune's Grain seed writes S-box code 1 in bits 2..5, which noble writes when
// `isSboxInverse` is set (noble names the flag for the x^-1 S-box; the seed bits are the
// same), so noble's grainGenConstants with it gives neptune's round constants; noble's own
// MDS (drawn from the LFSR) is not neptune's, so the matrix is neptune's Cauchy matrix
// M[i][j] = 1 / (i + (t + j)), computed here with noble's field and handed to noble's
// permutation.
//
// Random values come from block_i = SHA-256(seed || uint64_be(i)), consumed in order; field
// elements take 32 bytes big-endian, masked to 255 bits, rejected when >= r. Hex is canonical,
// big-endian, lowercase, 64 characters, no 0x.
//
// Output: one JSON object on stdout:
// { "seed": hex,
//   "params": [{ "arity", "width", "rounds_full", "rounds_partial",
//                "round_constants": [[t hex] per round], "mds": [[t hex] per row],
//                "permutations": [{ "input": [t hex], "output": [t hex] }],
//                "hashes": [{ "inputs": [a hex], "hash": hex }], "hash_of_counting": hex }] }

import { createHash } from 'node:crypto';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { grainGenConstants, poseidon } from '@noble/curves/abstract/poseidon.js';

function usage(msg) {
  if (msg) process.stderr.write('error: ' + msg + '\n');
  process.stderr.write('usage: node poseidon_vectors.mjs <seed-hex> <count> <arity>:<partial-rounds>[,...]\n');
  process.exit(2);
}
const argv = process.argv.slice(2);
if (argv.length !== 3) usage();
const seedHex = argv[0].toLowerCase().replace(/^0x/, '');
if (seedHex.length === 0 || seedHex.length % 2 !== 0 || !/^[0-9a-f]+$/.test(seedHex))
  usage('seed must be a non-empty, even-length hex string');
const COUNT = Number(argv[1]);
if (!Number.isSafeInteger(COUNT) || COUNT < 1 || COUNT > 1000) usage('count must be an integer in 1..1000');
const SHAPES = argv[2].split(',').map((s) => {
  const m = /^(\d+):(\d+)$/.exec(s);
  if (!m) usage('bad shape ' + s);
  const arity = Number(m[1]);
  const rp = Number(m[2]);
  if (arity < 1 || arity > 36 || rp < 1 || rp > 1000) usage('shape out of range: ' + s);
  return { arity, rp };
});

const SEED = Buffer.from(seedHex, 'hex');
let counter = 0n;
let pool = Buffer.alloc(0);
function bytes(n) {
  while (pool.length < n) {
    const ctr = Buffer.alloc(8);
    ctr.writeBigUInt64BE(counter++);
    pool = Buffer.concat([pool, createHash('sha256').update(SEED).update(ctr).digest()]);
  }
  const out = Buffer.from(pool.subarray(0, n));
  pool = pool.subarray(n);
  return out;
}

const Fr = bls12_381.fields.Fr;
const R = Fr.ORDER;
if (R !== BigInt('0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001')) {
  process.stderr.write('noble Fr modulus is not BLS12-381 r\n');
  process.exit(1);
}
function randomFr() {
  for (;;) {
    const b = bytes(32);
    b[0] &= 0x7f;
    const v = BigInt('0x' + b.toString('hex'));
    if (v < R) return v;
  }
}
const hex = (x) => x.toString(16).padStart(64, '0');

const params = SHAPES.map(({ arity, rp }) => {
  const t = arity + 1;
  const opts = { Fp: Fr, t, roundsFull: 8, roundsPartial: rp, isSboxInverse: true };
  const { roundConstants } = grainGenConstants(opts);
  const mds = Array.from({ length: t }, (_, i) => Array.from({ length: t }, (_, j) => Fr.inv(BigInt(i + t + j))));
  const permute = poseidon({ Fp: Fr, t, roundsFull: 8, roundsPartial: rp, roundConstants, mds, sboxPower: 5 });
  const permutations = [];
  const hashes = [];
  for (let i = 0; i < COUNT; i++) {
    const input = Array.from({ length: t }, randomFr);
    permutations.push({ input: input.map(hex), output: permute(input).map(hex) });
  }
  const tag = (1n << BigInt(arity)) - 1n;
  for (let i = 0; i < COUNT; i++) {
    const inputs = Array.from({ length: arity }, randomFr);
    hashes.push({ inputs: inputs.map(hex), hash: hex(permute([tag, ...inputs])[1]) });
  }
  return {
    arity,
    width: t,
    rounds_full: 8,
    rounds_partial: rp,
    round_constants: roundConstants.map((row) => row.map(hex)),
    mds: mds.map((row) => row.map(hex)),
    permutations,
    hashes,
    hash_of_counting: hex(permute([tag, ...Array.from({ length: arity }, (_, i) => BigInt(i))])[1]),
  };
});

process.stdout.write(JSON.stringify({ seed: seedHex, params }) + '\n');
