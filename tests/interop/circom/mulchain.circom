pragma circom 2.0.0;

// A multiplication chain: t[0] = x·y, t[i] = t[i-1]² + x; one constraint per step.
// Public: x (an input, made public by the main component) and out; y is private.
template MulChain(n) {
    signal input x;
    signal input y;
    signal output out;
    signal t[n];
    t[0] <== x * y;
    for (var i = 1; i < n; i++) {
        t[i] <== t[i-1] * t[i-1] + x;
    }
    out <== t[n-1];
}
