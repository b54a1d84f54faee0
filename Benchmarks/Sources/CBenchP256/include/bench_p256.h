#ifndef BENCH_P256_H
#define BENCH_P256_H
#include <stddef.h>
#include <stdint.h>

/* The benchmark's stand-in for a device's keystore (a Secure Enclave, a TPM):
   one P-256 key, made with Debian's libcrypto. Returns NULL on failure and
   writes the 65-byte uncompressed public point to `point`. */
void *bench_p256_new(uint8_t point[65]);
/* Frees a key from bench_p256_new. */
void bench_p256_free(void *key);
/* ECDSA with SHA-256 of `message`, written as r‖s with s ≤ n/2, as spec §7
   asks of a client. Returns 0 on success. */
int bench_p256_sign(void *key, const uint8_t *message, size_t length, uint8_t signature[64]);
#endif
