pragma circom 2.0.0;

// A Merkle inclusion proof built from circomlib-style templates (written here, not taken
// from circomlib): a bit decomposition of the leaf index, a two-way swap per level, and a
// toy MiMC-style compression x -> (x + r + c_i)^7 (not a vetted hash: a test workload).
// Public: the root; private: the leaf, its index and the siblings.

template Num2Bits(n) {
    signal input in;
    signal output out[n];
    var acc = 0;
    var e = 1;
    for (var i = 0; i < n; i++) {
        out[i] <-- (in >> i) & 1;
        out[i] * (out[i] - 1) === 0;
        acc += out[i] * e;
        e = e + e;
    }
    acc === in;
}

// (out[0], out[1]) = s ? (in[1], in[0]) : (in[0], in[1])
template DualMux() {
    signal input in[2];
    signal input s;
    signal output out[2];
    s * (1 - s) === 0;
    out[0] <== (in[1] - in[0]) * s + in[0];
    out[1] <== (in[0] - in[1]) * s + in[1];
}

template Pow7() {
    signal input in;
    signal output out;
    signal s2;
    signal s4;
    signal s6;
    s2 <== in * in;
    s4 <== s2 * s2;
    s6 <== s4 * s2;
    out <== s6 * in;
}

template Hash2(rounds) {
    signal input l;
    signal input r;
    signal output out;
    component p[rounds];
    signal t[rounds + 1];
    t[0] <== l;
    for (var i = 0; i < rounds; i++) {
        p[i] = Pow7();
        p[i].in <== t[i] + r + (i + 1) * (i + 1) * 7919 + 1;
        t[i + 1] <== p[i].out;
    }
    out <== t[rounds] + r;
}

template MerklePath(depth, rounds) {
    signal input root;
    signal input leaf;
    signal input index;
    signal input siblings[depth];
    component bits = Num2Bits(depth);
    bits.in <== index;
    component mux[depth];
    component h[depth];
    signal cur[depth + 1];
    cur[0] <== leaf;
    for (var i = 0; i < depth; i++) {
        mux[i] = DualMux();
        mux[i].in[0] <== cur[i];
        mux[i].in[1] <== siblings[i];
        mux[i].s <== bits.out[i];
        h[i] = Hash2(rounds);
        h[i].l <== mux[i].out[0];
        h[i].r <== mux[i].out[1];
        cur[i + 1] <== h[i].out;
    }
    root === cur[depth];
}
