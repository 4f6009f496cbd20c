/** signal: send a signal to a terminal program's process group, as a user's Ctrl+C or `kill` would. */
import { defineStep } from './define.js';

// The signals a user sends a program by hand; anything else is more likely a typo than intended.
const SIGNALS = ['INT', 'TERM', 'HUP', 'QUIT', 'TSTP', 'CONT', 'USR1', 'USR2', 'WINCH', 'KILL'] as const;

export const signalStep = defineStep({
  name: 'signal',
  description: 'Send a signal to the terminal program (its process group).',
  details: 'Terminal apps only (app.terminal). The answer holds whether the program is still running afterwards.',
  args: {
    type: 'object',
    properties: {
      name: { type: 'string', enum: SIGNALS, description: 'Without SIG.' },
    },
    required: ['name'],
    additionalProperties: false,
  } as const,
  readOnly: false,
  terminalOnly: true,
  shorthand: (name) => ({ name }),
  async run() {
    // Refused before this for a page (terminalOnly): the engine never calls it.
    return {};
  },
  async terminal(ctx, args) {
    await ctx.terminal.signal(args.name);
    // A moment for the program to act on it: an exit shows in crashReason.
    await new Promise((r) => setTimeout(r, 50));
    return { data: { sent: args.name, running: ctx.terminal.crashReason === undefined } };
  },
});
