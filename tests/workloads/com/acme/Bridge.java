// SPDX-License-Identifier: MIT
/*
 * A JVM whose Java calls C and C calls Java back, for tests/integration/java.sh: main
 * calls the native method viaNative (tests/workloads/com/acme/bridge.c, built by the test
 * against the JDK's jni.h and loaded from the path given as the first argument), whose C
 * calls back through JNI into settleBatch, a hot Java loop. A sample in settleBatch
 * holds the whole round trip: Java, the native method, C, the JVM's call into Java, Java.
 * Runs until killed; prints "ready" after its first second.
 */
package com.acme;

public class Bridge {
	static volatile long sink;

	static native long viaNative(int rounds);

	/* Called from C (bridge.c), never from Java. */
	static long settleBatch(int rounds)
	{
		long s = rounds;
		for (int i = 0; i < rounds; i++)
			s = s * 31 + (i ^ (s >>> 7));
		return s;
	}

	public static void main(String[] args)
	{
		System.load(args[0]);
		long start = System.nanoTime();
		boolean ready = false;
		for (;;) {
			sink += viaNative(1000000);
			if (!ready && System.nanoTime() - start > 1000000000L) {
				System.out.println("ready");
				ready = true;
			}
		}
	}
}
