// One timer per store for the deadlines of all its driver calls, instead of a timer, a promise race
// and an AbortController per call: a call that answers in time (nearly all of them) costs an entry
// in a set. The timer is armed for the earliest deadline, keeps the process alive only while a call
// is waiting, and when it fires, fails the calls whose deadline passed. A deadline may move later
// (a command waiting behind other writers that make progress): the timer is not touched then; when
// it fires early it finds the call still in time and is armed again for the earliest deadline.

/** What a call is watched for: its command's deadline, read when the timer fires. */
interface Deadlined {
  readonly deadline: number;
}

interface Watched {
  readonly of: Deadlined;
  readonly expire: () => unknown;
  readonly reject: (error: unknown) => void;
}

export class Watchdog {
  readonly #waiting = new Set<Watched>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the armed timer fires. */
  #armedFor = Number.POSITIVE_INFINITY;

  /**
   * `work`, or the error `expire()` returns once `of.deadline` (Date.now() ms, which may move later
   * meanwhile, never earlier) passes first. `expire` is called at most once, when the deadline wins.
   */
  watch<T>(work: Promise<T>, of: Deadlined, expire: () => unknown): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Watched = { of, expire, reject };
      this.#add(entry);
      work.then(
        (value) => {
          if (this.#waiting.delete(entry)) {
            this.#idle();
            resolve(value);
          }
        },
        (error: unknown) => {
          if (this.#waiting.delete(entry)) {
            this.#idle();
            reject(error);
          }
        },
      );
    });
  }

  #add(entry: Watched): void {
    const wasIdle = this.#waiting.size === 0;
    this.#waiting.add(entry);
    const { deadline } = entry.of;
    if (this.#timer === undefined || deadline < this.#armedFor) {
      this.#arm(deadline);
    } else if (wasIdle) {
      this.#timer.ref?.();
    }
  }

  /** Nobody waits: the armed timer no longer keeps the process alive. */
  #idle(): void {
    if (this.#waiting.size === 0) this.#timer?.unref?.();
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedFor = at;
    this.#timer = setTimeout(() => this.#fire(), Math.max(0, at - Date.now()));
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.#waiting) {
      const { deadline } = entry.of;
      if (deadline <= now) {
        this.#waiting.delete(entry);
        entry.reject(entry.expire());
      } else if (deadline < next) next = deadline;
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }
}
