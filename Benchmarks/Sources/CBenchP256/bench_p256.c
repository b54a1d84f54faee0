#include "bench_p256.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>

void *bench_p256_new(uint8_t point[65]) {
    EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    size_t length = 0;
    if (key == NULL) return NULL;
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, 65, &length) != 1 || length != 65) {
        EVP_PKEY_free(key);
        return NULL;
    }
    return key;
}

void bench_p256_free(void *key) { EVP_PKEY_free((EVP_PKEY *)key); }

int bench_p256_sign(void *key, const uint8_t *message, size_t length, uint8_t signature[64]) {
    unsigned char der[80];
    size_t der_length = sizeof der;
    int result = -1;
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    ECDSA_SIG *parsed = NULL;
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *half = NULL, *low = NULL;
    if (context == NULL || group == NULL) goto done;
    if (EVP_DigestSignInit(context, NULL, EVP_sha256(), NULL, (EVP_PKEY *)key) != 1) goto done;
    if (EVP_DigestSign(context, der, &der_length, message, length) != 1) goto done;
    const unsigned char *cursor = der;
    parsed = d2i_ECDSA_SIG(NULL, &cursor, (long)der_length);
    if (parsed == NULL) goto done;
    const BIGNUM *r = ECDSA_SIG_get0_r(parsed), *s = ECDSA_SIG_get0_s(parsed);
    const BIGNUM *order = EC_GROUP_get0_order(group);
    half = BN_dup(order);
    low = BN_new();
    if (half == NULL || low == NULL || BN_rshift1(half, half) != 1) goto done;
    /* A signer may give either s; the host takes only the low one. */
    if (BN_cmp(s, half) > 0) {
        if (BN_sub(low, order, s) != 1) goto done;
    } else if (BN_copy(low, s) == NULL) {
        goto done;
    }
    if (BN_bn2binpad(r, signature, 32) != 32 || BN_bn2binpad(low, signature + 32, 32) != 32) goto done;
    result = 0;
done:
    BN_free(half);
    BN_free(low);
    ECDSA_SIG_free(parsed);
    EC_GROUP_free(group);
    EVP_MD_CTX_free(context);
    return result;
}
