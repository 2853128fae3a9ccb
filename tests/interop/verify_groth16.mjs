#!/usr/bin/env node
// An independent Groth16 verifier built on @noble/curves' pairing, for checking proofs that
// snarkpipe produced, from files in snarkpipe's (bellperson's) formats:
//
//   node verify_groth16.mjs VK_FILE PROOF_FILE PUBLIC_JSON
//
//   VK_FILE      bellperson .vk: alpha_g1 ‖ beta_g1 ‖ beta_g2 ‖ gamma_g2 ‖ delta_g1 ‖ delta_g2
//                (uncompressed; G1 96 B, G2 192 B), u32 big-endian count, ic points (G1)
//   PROOF_FILE   192 bytes per proof: A (G1 compressed) ‖ B (G2 compressed) ‖ C (G1 compressed);
//                several proofs (partitions) may be concatenated
//   PUBLIC_JSON  the public inputs after the constant ONE, as a JSON array of decimal strings
//                (snarkjs's public.json); for several proofs, an array of such arrays
//
// Checks e(A, B) = e(α, β) · e(Σ x_i·ic_i, γ) · e(C, δ) (x_0 = 1) for every proof.
// Prints "valid" and exits 0, or prints the reason and exits 1; bad usage exits 2.
import { readFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const Fp12 = bls12_381.fields.Fp12;
const R = bls12_381.fields.Fr.ORDER;

function die(code, msg) {
  process.stdout.write(msg + '\n');
  process.exit(code);
}

const args = process.argv.slice(2);
if (args.length !== 3) die(2, 'usage: node verify_groth16.mjs VK_FILE PROOF_FILE PUBLIC_JSON');
const [vkPath, proofPath, publicPath] = args;

function readVk(bytes) {
  let pos = 0;
  const take = (n, what) => {
    if (pos + n > bytes.length) die(1, `invalid: vk file ends inside ${what}`);
    const out = bytes.subarray(pos, pos + n);
    pos += n;
    return out;
  };
  const vk = {
    alpha: G1.fromBytes(take(96, 'alpha_g1')),
    beta1: G1.fromBytes(take(96, 'beta_g1')),
    beta2: G2.fromBytes(take(192, 'beta_g2')),
    gamma: G2.fromBytes(take(192, 'gamma_g2')),
    delta1: G1.fromBytes(take(96, 'delta_g1')),
    delta2: G2.fromBytes(take(192, 'delta_g2')),
    ic: [],
  };
  const c = take(4, 'ic count');
  const n = ((c[0] << 24) | (c[1] << 16) | (c[2] << 8) | c[3]) >>> 0;
  for (let i = 0; i < n; i++) vk.ic.push(G1.fromBytes(take(96, `ic[${i}]`)));
  if (pos !== bytes.length) die(1, 'invalid: trailing bytes after the verifying key');
  return vk;
}

let vk, proofBytes, pub;
try {
  vk = readVk(readFileSync(vkPath));
  proofBytes = readFileSync(proofPath);
  pub = JSON.parse(readFileSync(publicPath, 'utf8'));
} catch (e) {
  die(1, 'invalid: ' + e.message);
}
if (proofBytes.length === 0 || proofBytes.length % 192 !== 0) die(1, 'invalid: proof length is not a multiple of 192');
const nProofs = proofBytes.length / 192;
const inputsPerProof = nProofs === 1 && !Array.isArray(pub[0]) ? [pub] : pub;
if (inputsPerProof.length !== nProofs) die(1, `invalid: ${nProofs} proofs but ${inputsPerProof.length} input lists`);

const alphaBeta = bls12_381.pairing(vk.alpha, vk.beta2);
for (let k = 0; k < nProofs; k++) {
  const inputs = inputsPerProof[k];
  if (inputs.length + 1 !== vk.ic.length) die(1, `invalid: proof ${k}: key expects ${vk.ic.length - 1} inputs, got ${inputs.length}`);
  let A, B, C;
  try {
    const p = proofBytes.subarray(192 * k, 192 * (k + 1));
    A = G1.fromBytes(p.subarray(0, 48));
    B = G2.fromBytes(p.subarray(48, 144));
    C = G1.fromBytes(p.subarray(144, 192));
  } catch (e) {
    die(1, `invalid: proof ${k}: ${e.message}`);
  }
  let acc = vk.ic[0];
  for (let i = 0; i < inputs.length; i++) {
    const x = BigInt(inputs[i]);
    if (x < 0n || x >= R) die(1, `invalid: proof ${k}: input ${i} out of range`);
    if (x !== 0n) acc = acc.add(vk.ic[i + 1].multiply(x));
  }
  if (A.equals(G1.ZERO) || B.equals(G2.ZERO) || C.equals(G1.ZERO)) die(1, `invalid: proof ${k} has a point at infinity`);
  const lhs = bls12_381.pairing(A, B);
  const accTerm = acc.equals(G1.ZERO) ? Fp12.ONE : bls12_381.pairing(acc, vk.gamma);
  const rhs = Fp12.mul(Fp12.mul(alphaBeta, accTerm), bls12_381.pairing(C, vk.delta2));
  if (!Fp12.eql(lhs, rhs)) die(1, `invalid: proof ${k} does not verify`);
}
die(0, 'valid');
