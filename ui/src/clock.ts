// The kernel's clock, as seen from the UI. Countdowns must agree with what the kernel will
// decide, so they are computed from the backend's `now_ms`, advanced by the UI's own monotonic
// clock between answers — a slow answer (the model is thinking) does not freeze a countdown,
// and a UI clock set wrong does not skew it.

export class ServerClock {
  private offset: number | null = null;

  constructor(private readonly monotonic: () => number = () => performance.now()) {}

  /** Records the backend's time as of now. */
  sync(serverNowMs: number): void {
    this.offset = serverNowMs - this.monotonic();
  }

  /** The backend's time now, or null before the first sync. */
  now(): number | null {
    return this.offset === null ? null : this.offset + this.monotonic();
  }
}
