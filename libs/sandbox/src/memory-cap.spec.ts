import { describe, expect, it } from 'vitest';
import { MemoryLedger, residentMb, stepAllowanceMb } from './memory-cap';

describe('MemoryLedger', () => {
  it('allows a step alone its own allowance over where the worker stood when it began', () => {
    const ledger = new MemoryLedger<string>();
    ledger.begin('a', 100, 50);
    expect(ledger.outgrown(150)).toBe(false);
    expect(ledger.outgrown(151)).toBe(true);
    expect(ledger.sole).toBe('a');
  });

  it('allows a step the growth of the steps beside it and of the opens made while it runs', () => {
    const ledger = new MemoryLedger<string>();
    ledger.begin('a', 100, 50);
    ledger.begin('b', 100, 120);
    // a: 100 + b's 100; b: its 100 + a's 100, since a was running when b began.
    expect(ledger.outgrown(250)).toBe(false);
    expect(ledger.outgrown(251)).toBe(true);
    expect(ledger.sole).toBeUndefined();
    ledger.grant(20);
    expect(ledger.outgrown(270)).toBe(false);
    expect(ledger.outgrown(271)).toBe(true);
  });

  it('forgets what ended, so a busy worker never accumulates allowance', () => {
    const ledger = new MemoryLedger<string>();
    ledger.begin('a', 100, 50);
    for (let i = 0; i < 100; i++) {
      ledger.begin(`s${i}`, 100, 50);
      ledger.end(`s${i}`);
    }
    ledger.end('a');
    expect(ledger.steps).toBe(0);
    ledger.begin('late', 100, 60);
    expect(ledger.outgrown(161)).toBe(true);
  });

  it('reads resident sizes from /proc, and null for a process that is not there', () => {
    expect(residentMb(process.pid)).toBeGreaterThan(10);
    expect(residentMb(2 ** 30)).toBeNull();
    expect(stepAllowanceMb(128)).toBe(256);
  });
});
