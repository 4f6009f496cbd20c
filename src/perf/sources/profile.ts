/**
 * The CPU profile (attribution mode, CDP): blocks of script ranked by self time and by the frames they ran
 * in. It writes no metric: the profiler inflates milliseconds, so it ranks, it does not measure.
 */
import { blocksByCount, blocksBySelf, readProfile, type Block, type ProfileData } from '../profile.js';
import { defineSource } from './source.js';

export interface ProfileFindings {
  profile: ProfileData | undefined;
  bySelf: Block[];
  byCount: Block[];
}

export const profileSource = defineSource<ProfileFindings>({
  name: 'profile',
  emits: [],
  cover: ({ raw }) =>
    raw.mode === 'attribution' ? { profile: raw.missing.profile ?? (raw.profile ? null : 'no CPU profile was recorded') } : {},
  measure({ raw, offsetMs, window, frames }) {
    // Only a profiler that ran inflates them: a driver without one (or a profiler that failed to start) leaves ms as they are.
    const warnings =
      raw.mode === 'attribution' && raw.profile
        ? ['attribution mode: the CPU profiler inflates milliseconds; use them to rank, compare timing-mode milliseconds']
        : [];
    if (raw.profile && offsetMs !== undefined) {
      const profile = readProfile(raw.profile, offsetMs, window);
      return { emits: [], findings: { profile, bySelf: blocksBySelf(profile), byCount: blocksByCount(profile, frames.frameOf) }, warnings };
    }
    if (raw.profile) {
      // No trace clock: use the profile's own window (it was started and stopped inside the session).
      const profile = readProfile(raw.profile, 0, { startAt: -Infinity, endAt: Infinity });
      return { emits: [], findings: { profile, bySelf: blocksBySelf(profile), byCount: [] }, warnings };
    }
    return { emits: [], findings: { profile: undefined, bySelf: [], byCount: [] }, warnings };
  },
});
