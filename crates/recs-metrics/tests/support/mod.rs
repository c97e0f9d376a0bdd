//! Generated data for the integration tests and the benchmarks (which include this file
//! by path): a deterministic stream, so every run sees the same input and the crate needs
//! no random-number dependency for it.

/// A xorshift64 stream.
pub(crate) struct Stream(pub(crate) u64);

impl Stream {
    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `[0, 1)` with 24 random bits.
    pub(crate) fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
}
