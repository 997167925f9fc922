// The rate and in-flight caps of `memdir serve --http` are @memdir/server's (one bucket per token,
// charged per call); re-exported for the CLI's own tests of them.
export { InFlight, RateLimiter } from '@memdir/server';
