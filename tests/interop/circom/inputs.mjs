// Writes the input.json of the test circuits (run.sh): node inputs.mjs NAME PARAMS... > input.json
// merkle's root is computed here with the same toy hash as merkle.circom, over BLS12-381's r.
const R = 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n;
const mod = (x) => ((x % R) + R) % R;
const pow7 = (x) => { const x2 = mod(x * x), x4 = mod(x2 * x2); return mod(mod(x4 * x2) * x); };

function hash2(l, r, rounds) {
  let t = l;
  for (let i = 0; i < rounds; i++) {
    const c = BigInt((i + 1) * (i + 1) * 7919 + 1);
    t = pow7(mod(t + r + c));
  }
  return mod(t + r);
}

// A deterministic pseudo-random field element stream (the test's witness needs no secrecy).
let state = 0x243f6a8885a308d3n;
function next() {
  state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 256n) - 1n);
  return mod(state);
}

const [name, ...args] = process.argv.slice(2);
let input;
if (name === "mulchain") {
  input = { x: "3", y: "11" };
} else if (name === "merkle") {
  const depth = Number(args[0]), rounds = Number(args[1]), index = Number(args[2]);
  const leaf = next();
  const siblings = Array.from({ length: depth }, () => next());
  let cur = leaf;
  for (let i = 0; i < depth; i++) {
    const bit = (index >> i) & 1;
    cur = bit ? hash2(siblings[i], cur, rounds) : hash2(cur, siblings[i], rounds);
  }
  input = { root: cur.toString(), leaf: leaf.toString(), index: String(index), siblings: siblings.map(String) };
} else if (name === "manypublic") {
  const n = Number(args[0]);
  input = { x: Array.from({ length: n }, () => next().toString()), k: next().toString() };
} else {
  throw new Error("unknown circuit " + name);
}
process.stdout.write(JSON.stringify(input) + "\n");
