// SPDX-License-Identifier: MIT
/*
 * The C side of Bridge.java's round trip: Java_com_acme_Bridge_viaNative calls
 * bridge_call_back, which calls the Java method settleBatch through JNI. Built by
 * tests/integration/java.sh against the JDK it finds (its jni.h), as a shared library
 * without frame pointers: the walk goes from Java into C and back by the tables.
 */
#include <jni.h>

__attribute__((noinline)) static jlong bridge_call_back(JNIEnv *env, jclass cls, jint rounds)
{
	static jmethodID settle;
	jlong settled;

	if (!settle)
		settle = (*env)->GetStaticMethodID(env, cls, "settleBatch", "(I)J");
	if (!settle)
		return 0;
	settled = (*env)->CallStaticLongMethod(env, cls, settle, rounds);
	return settled ^ rounds; /* after the call: not a tail call, its frame stays */
}

JNIEXPORT jlong JNICALL Java_com_acme_Bridge_viaNative(JNIEnv *env, jclass cls, jint rounds)
{
	return bridge_call_back(env, cls, rounds) + 1;
}
