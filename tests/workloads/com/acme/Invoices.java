// SPDX-License-Identifier: MIT
/*
 * A JVM with known method names for the Java tests (tests/unit/unwind/test_jvm.c,
 * tests/integration/java.sh): Invoices.computeTotals is a hot loop C2 compiles, which
 * inlines applyRate into it; applyRate calls roundCents, which the tests keep out of line
 * (-XX:CompileCommand=dontinline,com.acme.Invoices::roundCents), so that a sample in
 * roundCents returns into applyRate's code inside computeTotals'. roundCents is so
 * short that many of its samples are in its compiled code's entry or exit, where its
 * frame is not built. Invoices.auditOnce is
 * a loop kept interpreted (the tests start the JVM with
 * -XX:CompileCommand=exclude,com.acme.Invoices::auditOnce: its loop alone would be
 * compiled on stack within seconds), and Invoices.descend recurses 40 deep before the
 * hot loop, so a sample holds the same method many times. Each turn of main runs both,
 * a few milliseconds each. A second thread, Settlement, spends its time in
 * awaitSettlement's Thread.sleep (interpreted: 50 calls a second never get it compiled):
 * what the threads question finds a waiting Java thread doing. Runs until killed; prints
 * "ready" after its first second.
 */
package com.acme;

public class Invoices {
	static volatile long sink;

	static long computeTotals(long seed)
	{
		long s = seed;
		for (int i = 0; i < 2000000; i++)
			s = applyRate(s, i);
		return s;
	}

	static long applyRate(long s, int i)
	{
		return roundCents(s * 31 + (i ^ (s >>> 7)));
	}

	static long roundCents(long v)
	{
		return v ^ (v >>> 3);
	}

	static long descend(int depth, long seed)
	{
		if (depth == 0)
			return computeTotals(seed);
		return descend(depth - 1, seed + depth) + 1;
	}

	static void auditOnce(long seed)
	{
		long s = seed;
		for (int i = 0; i < 300000; i++)
			s ^= (s << 13) + i;
		sink = s;
	}

	static void awaitSettlement() throws InterruptedException
	{
		for (;;)
			Thread.sleep(20);
	}

	static class Settlement extends Thread {
		Settlement()
		{
			super("settlement");
			setDaemon(true);
		}

		@Override
		public void run()
		{
			try {
				awaitSettlement();
			} catch (InterruptedException e) {
				return;
			}
		}
	}

	public static void main(String[] args)
	{
		long seed = 1, last = System.nanoTime();
		boolean said = false;

		new Settlement().start();

		for (long n = 0;; n++) {
			seed = descend(40, seed);
			auditOnce(seed);
			if (System.nanoTime() - last > 1000000000L) {
				last = System.nanoTime();
				if (!said) {
					System.out.println("ready");
					System.out.flush();
					said = true;
				}
			}
		}
	}
}
