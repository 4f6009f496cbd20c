/** The program a scenario's app starts, if it starts one: what a command policy refuses and what a bisect says it will run. */
import type { Scenario } from './load.js';

export interface ScenarioProgram {
  /** The key that starts it. */
  key: 'app.command' | 'app.terminal' | 'app.desktop';
  /** The command line, as the scenario gives it. */
  line: string;
}

/** A scenario whose app is a program (a shell command, a terminal program, a desktop binary); undefined for serve and url. */
export function scenarioProgram(sc: Pick<Scenario, 'app'>): ScenarioProgram | undefined {
  const { command, terminal, desktop } = sc.app;
  if (command !== undefined) return { key: 'app.command', line: command };
  if (terminal) return { key: 'app.terminal', line: [terminal.command, ...terminal.args].join(' ') };
  if (desktop) return { key: 'app.desktop', line: [desktop.binary, ...desktop.args].join(' ') };
  return undefined;
}
