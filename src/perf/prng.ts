/**
 * mulberry32 (Tommy Ettinger, public domain): a tiny, fast, seedable generator of uniform numbers in [0, 1). Seeded,
 * so what uses it (change-point permutations, simulations, benchmark data) gives the same answer on every run.
 */
export function mulberry32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
