/* A host-memory stand-in for fixtures/gpu/flash's wp_flash_fwd, so that tools/gpu/flash_twin.py's
 * harness (workers, ctypes call, result files, crash recovery, skipping, the JSON) can be tested
 * on a machine without a GPU: `python3 tools/gpu/flash_twin.py --mock-test` (needs torch, CPU
 * is enough, and a C compiler) builds it in a few variants and compares them as ORIG and TWIN.
 * Same signature and layouts as flash_entry.cu; plain fp32 attention, one output rounding.
 *   -DWP_MOCK_EVEN_ONLY     only "Is_even_MN" shapes (kernel count 8, -1 otherwise)
 *   -DWP_MOCK_PERTURB       flips the lowest bit of out[0] (a twin that differs, still passes)
 *   -DWP_MOCK_ABORT_SQ=N    abort() when seqlen_q == N (a worker that dies mid-run)
 *   -DWP_MOCK_WRONG_SQ=N    an output off by 0.1 when seqlen_q == N (a failing case)
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static float h2f(uint16_t h) { _Float16 x; memcpy(&x, &h, 2); return (float)x; }
static uint16_t f2h(float f) { _Float16 x = (_Float16)f; uint16_t h; memcpy(&h, &x, 2); return h; }
static float b2f(uint16_t b) { uint32_t u = (uint32_t)b << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t f2b(float f) {
    uint32_t u; memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
    u += 0x7fffu + ((u >> 16) & 1u);  /* round to nearest even */
    return (uint16_t)(u >> 16);
}

int wp_flash_fwd_kernel_count(void) {
#ifdef WP_MOCK_EVEN_ONLY
    return 8;
#else
    return 16;
#endif
}

int wp_flash_fwd(int head_dim, int is_bf16, int is_causal, const void *q, const void *k,
                 const void *v, void *out, float *lse, int batch, int heads, int seqlen_q,
                 int seqlen_k, float scale, void *stream) {
    (void)stream;
    if (head_dim != 64 && head_dim != 128) return -1;
    if (batch <= 0 || heads <= 0 || seqlen_q <= 0 || seqlen_k <= 0) return -2;
#ifdef WP_MOCK_EVEN_ONLY
    {
        int bn = head_dim == 64 ? 128 : 64;
        if (seqlen_q % 128 || seqlen_k % bn) return -1;
    }
#endif
#ifdef WP_MOCK_ABORT_SQ
    if (seqlen_q == WP_MOCK_ABORT_SQ) abort();
#endif
    if (seqlen_q == 1) is_causal = 0;
    const uint16_t *Q = q, *K = k, *V = v;
    uint16_t *O = out;
    float (*ld)(uint16_t) = is_bf16 ? b2f : h2f;
    uint16_t (*st)(float) = is_bf16 ? f2b : f2h;
    const long d = head_dim, row = (long)heads * d;
    float *s = malloc(sizeof(float) * seqlen_k), *acc = malloc(sizeof(float) * d);
    for (int b = 0; b < batch; b++)
        for (int h = 0; h < heads; h++)
            for (int i = 0; i < seqlen_q; i++) {
                const uint16_t *qi = Q + ((long)b * seqlen_q + i) * row + h * d;
                int last = is_causal ? i + seqlen_k - seqlen_q : seqlen_k - 1;
                if (last > seqlen_k - 1) last = seqlen_k - 1;
                float m = -INFINITY;
                for (int j = 0; j <= last; j++) {
                    const uint16_t *kj = K + ((long)b * seqlen_k + j) * row + h * d;
                    float dot = 0;
                    for (long x = 0; x < d; x++) dot += ld(qi[x]) * ld(kj[x]);
                    s[j] = dot * scale;
                    if (s[j] > m) m = s[j];
                }
                float sum = 0;
                for (long x = 0; x < d; x++) acc[x] = 0;
                for (int j = 0; j <= last; j++) {
                    float p = expf(s[j] - m);
                    sum += p;
                    const uint16_t *vj = V + ((long)b * seqlen_k + j) * row + h * d;
                    for (long x = 0; x < d; x++) acc[x] += p * ld(vj[x]);
                }
                uint16_t *oi = O + ((long)b * seqlen_q + i) * row + h * d;
                for (long x = 0; x < d; x++) oi[x] = st(sum > 0 ? acc[x] / sum : 0.0f);
#ifdef WP_MOCK_WRONG_SQ
                if (seqlen_q == WP_MOCK_WRONG_SQ) oi[0] = st(ld(oi[0]) + 0.1f);
#endif
                lse[((long)b * heads + h) * seqlen_q + i] = sum > 0 ? m + logf(sum) : INFINITY;
            }
#ifdef WP_MOCK_PERTURB
    O[0] ^= 1;
#endif
    free(s);
    free(acc);
    return 0;
}
