/**
 * Per-host state with typed slots: each module that keeps something on a step host (the perf
 * session, the target refs) declares its own StateSlot<T> and reads back a T, with no string keys
 * and no cast at the use site. Cleared when the host's page is replaced.
 */

/** One typed value on a host, owned by the module that declares it. `name` is for debugging only. */
export class StateSlot<T> {
  // Only there to keep T part of the slot's type (slots of different T are different types).
  declare private readonly type: T;
  constructor(readonly name: string) {}
}

export class HostState {
  private readonly values = new Map<StateSlot<unknown>, unknown>();

  get<T>(slot: StateSlot<T>): T | undefined {
    // Only set() writes here, with a value of the slot's own type.
    return this.values.get(slot) as T | undefined;
  }

  set<T>(slot: StateSlot<T>, value: T): void {
    this.values.set(slot, value);
  }

  delete<T>(slot: StateSlot<T>): void {
    this.values.delete(slot);
  }

  clear(): void {
    this.values.clear();
  }
}
