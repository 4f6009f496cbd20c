/**
 * The heap and the DOM after a forced garbage collection (CDP): read at both ends of the window, outside its
 * timed part. WebDriver and terminal sessions say why there is none (their /proc peak is process.maxRssBytes).
 */
import * as M from '../metrics.js';
import { defineSource } from './source.js';

export const memorySource = defineSource<null>({
  name: 'memory',
  emits: M.MEMORY_METRICS,
  // A session from before memory was read has neither: no coverage entry, as before.
  cover: ({ raw }) => (raw.memory ? { memory: null } : raw.missing.memory !== undefined ? { memory: raw.missing.memory } : {}),
  measure: ({ raw: { memory } }) => ({
    emits: memory
      ? [
          { def: M.memoryHeapUsedAfterGcBytes, value: memory.end.heapUsedBytes },
          { def: M.memoryHeapGrowthAfterGcBytes, value: memory.end.heapUsedBytes - memory.start.heapUsedBytes },
          ...(memory.end.blinkHeapUsedBytes !== undefined
            ? [{ def: M.memoryBlinkHeapAfterGcBytes, value: memory.end.blinkHeapUsedBytes }]
            : []),
          { def: M.memoryDomNodes, value: memory.end.nodes },
          { def: M.memoryDocuments, value: memory.end.documents },
          { def: M.memoryJsEventListeners, value: memory.end.jsEventListeners },
        ]
      : [],
    findings: null,
  }),
});
