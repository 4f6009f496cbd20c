/**
 * Ranked insights: each rule a defineInsight({...}) literal, all listed in INSIGHTS.
 */
import type { Analysis } from './report.js';

export type Severity = 'error' | 'warn' | 'info';

export interface Insight {
  id: string;
  severity: Severity;
  title: string;
  evidence: { metric: string; value: number; perFrame: number | null; threshold: number };
  estimatedSavingsMs?: number;
  nextStep: string;
}

/** The rows behind one insight (perf_insight). */
export interface InsightDetail {
  id: string;
  title: string;
  rows: Record<string, unknown>[];
  note?: string;
}

export function runInsights(_a: Analysis): { insights: Insight[]; details: Map<string, InsightDetail>; omitted: number } {
  return { insights: [], details: new Map(), omitted: 0 };
}
