pragma circom 2.0.0;

// A chain of N multiplications for cuzk's snarkjs interop test and benchmark.
// Public signals (snarkjs orders them outputs first): out, a, b. x is private.
//   acc[0]   = x * a
//   acc[i]   = acc[i-1]^2 + b        for i = 1 .. N-1
//   out      = acc[N-1]
// Exactly N rank-1 constraints after circom's simplification; the repeated
// squaring makes every witness value a full-size field element.
template Chain(N) {
    assert(N >= 1);
    signal input a;
    signal input b;
    signal input x;
    signal output out;

    signal acc[N];
    acc[0] <== x * a;
    for (var i = 1; i < N; i++) {
        acc[i] <== acc[i - 1] * acc[i - 1] + b;
    }
    out <== acc[N - 1];
}
