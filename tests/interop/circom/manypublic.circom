pragma circom 2.0.0;

// Many public signals: n public inputs x[i] and n public outputs y[i] = x[i]·k + i, with
// k private (2n public signals, a large IC).
template ManyPublic(n) {
    signal input x[n];
    signal input k;
    signal output y[n];
    for (var i = 0; i < n; i++) {
        y[i] <== x[i] * k + i;
    }
}
