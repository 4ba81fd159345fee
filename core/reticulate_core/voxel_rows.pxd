# Voxel rows of the layer-by-layer scan (seed: "querying ... materials
# during a layer-by-layer Parity scan"): each axis frame (a; u, v) sees the
# padded chunk as rows of 34 voxels contiguous along u, so one row compare
# gives 32 bits at once.  Frame 1 (y; z, x) reads the padded array itself;
# frames 0 (x; y, z) and 2 (z; x, y) read transposed copies, built slab by
# slab when a layer's links need them.  The solid masks of every frame come
# from the pad's rows along z (for a standalone chunk, taken while it is
# copied into the pad) and 32 x 32 bit-matrix transposes.  The row kernels
# are SSE2 (plain C with RETICULATE_PORTABLE or without SSE2); the solid
# masks and the standalone copy, once per chunk, take AVX2 where GCC or
# Clang can build it and the CPU has it, checked at the first call
# (row_kernel() in mesher.pyx).
from libc.stdint cimport uint16_t, uint32_t
from libc.string cimport memcpy, memset

from reticulate_core.chunk_state cimport P, PP, State, ret_ctz32

cdef extern from *:
    """
    #if (defined(__SSE2__) || defined(_M_X64)) && !defined(RETICULATE_PORTABLE)
    #define RET_ROW_KERNEL 1    /* SSE2 */
    #include <emmintrin.h>
    /* bytes b of the sixteen rows in q[0..3] (four rows each), one per byte lane */
    static inline __m128i ret_row_bytes16(const __m128i* q, int b) {
        __m128i low = _mm_set1_epi32(0xFF), w[4];
        for (int k = 0; k < 4; k++)
            w[k] = _mm_and_si128(_mm_srli_epi32(q[k], 8 * b), low);
        return _mm_packus_epi16(_mm_packs_epi32(w[0], w[1]), _mm_packs_epi32(w[2], w[3]));
    }
    /* out[c] bit r = in[r] bit c: a 32 x 32 bit matrix transposed by byte
       columns: byte b of every row packed into two vectors, then each
       movemask reads the top bit of every byte, column 8 b + 7, and a
       doubling brings the next column to the top */
    static inline void ret_transpose32(const unsigned int* in, unsigned int* out) {
        __m128i q[8];
        for (int k = 0; k < 8; k++) q[k] = _mm_loadu_si128((const __m128i*)(in + 4 * k));
        for (int b = 0; b < 4; b++) {
            __m128i lo = ret_row_bytes16(q, b), hi = ret_row_bytes16(q + 4, b);
            for (int c = 8 * b + 7; c >= 8 * b; c--) {
                out[c] = (unsigned int)_mm_movemask_epi8(lo) | ((unsigned int)_mm_movemask_epi8(hi) << 16);
                lo = _mm_add_epi8(lo, lo);
                hi = _mm_add_epi8(hi, hi);
            }
        }
    }
    /* bit k: a[k] == b[k], k < 32 */
    static inline unsigned int ret_equal32(const unsigned short* a, const unsigned short* b) {
        __m128i e0 = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*)a), _mm_loadu_si128((const __m128i*)b));
        __m128i e1 = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*)(a + 8)), _mm_loadu_si128((const __m128i*)(b + 8)));
        __m128i e2 = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*)(a + 16)), _mm_loadu_si128((const __m128i*)(b + 16)));
        __m128i e3 = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*)(a + 24)), _mm_loadu_si128((const __m128i*)(b + 24)));
        return (unsigned int)_mm_movemask_epi8(_mm_packs_epi16(e0, e1))
            | ((unsigned int)_mm_movemask_epi8(_mm_packs_epi16(e2, e3)) << 16);
    }
    /* bit k: a[k] == 0, k < 32 */
    static inline unsigned int ret_zero32(const unsigned short* a) {
        __m128i z = _mm_setzero_si128();
        __m128i e0 = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*)a), z);
        __m128i e1 = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*)(a + 8)), z);
        __m128i e2 = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*)(a + 16)), z);
        __m128i e3 = _mm_cmpeq_epi16(_mm_loadu_si128((const __m128i*)(a + 24)), z);
        return (unsigned int)_mm_movemask_epi8(_mm_packs_epi16(e0, e1))
            | ((unsigned int)_mm_movemask_epi8(_mm_packs_epi16(e2, e3)) << 16);
    }
    /* whether any byte of the n 64-byte blocks at p is non-zero */
    static inline int ret_any_nonzero64(const void* p, int n) {
        const __m128i* q = (const __m128i*)p;
        __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
        for (int k = 0; k < n; k++, q += 4) {
            a0 = _mm_or_si128(a0, _mm_loadu_si128(q));
            a1 = _mm_or_si128(a1, _mm_loadu_si128(q + 1));
            a2 = _mm_or_si128(a2, _mm_loadu_si128(q + 2));
            a3 = _mm_or_si128(a3, _mm_loadu_si128(q + 3));
        }
        a0 = _mm_or_si128(_mm_or_si128(a0, a1), _mm_or_si128(a2, a3));
        return _mm_movemask_epi8(_mm_cmpeq_epi8(a0, _mm_setzero_si128())) != 0xFFFF;
    }
    /* solid voxels other than a material, gathered lane-wise over many rows */
    typedef struct { __m128i lanes; } ret_others;
    static inline void ret_others_clear(ret_others* o) { o->lanes = _mm_setzero_si128(); }
    /* add the voxels a[k], k < 32, that are neither 0 nor m */
    static inline void ret_others_add(ret_others* o, const unsigned short* a, unsigned short m) {
        __m128i z = _mm_setzero_si128(), mm = _mm_set1_epi16((short)m), acc = o->lanes;
        for (int k = 0; k < 32; k += 8) {
            __m128i v = _mm_loadu_si128((const __m128i*)(a + k));
            acc = _mm_or_si128(acc, _mm_andnot_si128(_mm_cmpeq_epi16(v, z), _mm_xor_si128(v, mm)));
        }
        o->lanes = acc;
    }
    static inline int ret_others_any(const ret_others* o) {
        return _mm_movemask_epi8(_mm_cmpeq_epi8(o->lanes, _mm_setzero_si128())) != 0xFFFF;
    }
    /* dst[c * ds + r] = src[r * rs + c] for an 8 x 8 block */
    static inline void ret_transpose8(const unsigned short* src, int rs, unsigned short* dst, int ds) {
        __m128i r0 = _mm_loadu_si128((const __m128i*)(src));
        __m128i r1 = _mm_loadu_si128((const __m128i*)(src + rs));
        __m128i r2 = _mm_loadu_si128((const __m128i*)(src + 2 * rs));
        __m128i r3 = _mm_loadu_si128((const __m128i*)(src + 3 * rs));
        __m128i r4 = _mm_loadu_si128((const __m128i*)(src + 4 * rs));
        __m128i r5 = _mm_loadu_si128((const __m128i*)(src + 5 * rs));
        __m128i r6 = _mm_loadu_si128((const __m128i*)(src + 6 * rs));
        __m128i r7 = _mm_loadu_si128((const __m128i*)(src + 7 * rs));
        __m128i t0 = _mm_unpacklo_epi16(r0, r1), t1 = _mm_unpackhi_epi16(r0, r1);
        __m128i t2 = _mm_unpacklo_epi16(r2, r3), t3 = _mm_unpackhi_epi16(r2, r3);
        __m128i t4 = _mm_unpacklo_epi16(r4, r5), t5 = _mm_unpackhi_epi16(r4, r5);
        __m128i t6 = _mm_unpacklo_epi16(r6, r7), t7 = _mm_unpackhi_epi16(r6, r7);
        __m128i u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2);
        __m128i u2 = _mm_unpacklo_epi32(t1, t3), u3 = _mm_unpackhi_epi32(t1, t3);
        __m128i u4 = _mm_unpacklo_epi32(t4, t6), u5 = _mm_unpackhi_epi32(t4, t6);
        __m128i u6 = _mm_unpacklo_epi32(t5, t7), u7 = _mm_unpackhi_epi32(t5, t7);
        _mm_storeu_si128((__m128i*)(dst), _mm_unpacklo_epi64(u0, u4));
        _mm_storeu_si128((__m128i*)(dst + ds), _mm_unpackhi_epi64(u0, u4));
        _mm_storeu_si128((__m128i*)(dst + 2 * ds), _mm_unpacklo_epi64(u1, u5));
        _mm_storeu_si128((__m128i*)(dst + 3 * ds), _mm_unpackhi_epi64(u1, u5));
        _mm_storeu_si128((__m128i*)(dst + 4 * ds), _mm_unpacklo_epi64(u2, u6));
        _mm_storeu_si128((__m128i*)(dst + 5 * ds), _mm_unpackhi_epi64(u2, u6));
        _mm_storeu_si128((__m128i*)(dst + 6 * ds), _mm_unpacklo_epi64(u3, u7));
        _mm_storeu_si128((__m128i*)(dst + 7 * ds), _mm_unpackhi_epi64(u3, u7));
    }
    #else
    #define RET_ROW_KERNEL 0    /* portable C */
    /* out[c] bit r = in[r] bit c: a 32 x 32 bit matrix transposed, rows r
       and r + 16 side by side in one 64-bit word (Hacker's Delight 7-3) */
    #define RET_SWAP(j, m) \
        for (k = 0; k < 16; k++) if (!(k & j)) { \
            t = ((w[k] >> j) ^ w[k + j]) & (m); w[k] ^= t << j; w[k + j] ^= t; }
    static inline void ret_transpose32(const unsigned int* in, unsigned int* out) {
        unsigned long long w[16], t;
        int k;
        for (k = 0; k < 16; k++) {
            w[k] = in[k] | ((unsigned long long)in[k + 16] << 32);
            t = ((w[k] >> 16) ^ (w[k] >> 32)) & 0xFFFFull;
            w[k] ^= (t << 16) | (t << 32);
        }
        RET_SWAP(8, 0x00FF00FF00FF00FFull)
        RET_SWAP(4, 0x0F0F0F0F0F0F0F0Full)
        RET_SWAP(2, 0x3333333333333333ull)
        RET_SWAP(1, 0x5555555555555555ull)
        for (k = 0; k < 16; k++) {
            out[k] = (unsigned int)w[k];
            out[k + 16] = (unsigned int)(w[k] >> 32);
        }
    }
    static inline unsigned int ret_equal32(const unsigned short* a, const unsigned short* b) {
        unsigned int m = 0;
        for (int k = 0; k < 32; k++) m |= (unsigned int)(a[k] == b[k]) << k;
        return m;
    }
    static inline unsigned int ret_zero32(const unsigned short* a) {
        unsigned int bits = 0;
        for (int k = 0; k < 32; k++) bits |= (unsigned int)(a[k] == 0) << k;
        return bits;
    }
    static inline int ret_any_nonzero64(const void* p, int n) {
        const unsigned char* b = (const unsigned char*)p;
        unsigned char any = 0;
        for (int k = 0; k < 64 * n; k++) any |= b[k];
        return any != 0;
    }
    typedef struct { unsigned int any; } ret_others;
    static inline void ret_others_clear(ret_others* o) { o->any = 0; }
    static inline void ret_others_add(ret_others* o, const unsigned short* a, unsigned short m) {
        for (int k = 0; k < 32; k++) o->any |= a[k] != 0 && a[k] != m;
    }
    static inline int ret_others_any(const ret_others* o) { return o->any != 0; }
    static inline void ret_transpose8(const unsigned short* src, int rs, unsigned short* dst, int ds) {
        for (int r = 0; r < 8; r++)
            for (int c = 0; c < 8; c++) dst[c * ds + r] = src[r * rs + c];
    }
    #endif
    /* ret_solid_rows: out[r] = the solid bits of the n rows of 32 voxels
       a + 34 r, their voxels neither 0 nor m added to o (ret_zero32's
       complement and ret_others_add, row by row) */
    static inline void ret_solid_rows_plain(const unsigned short* a, int n, unsigned short m,
                                            ret_others* o, unsigned int* out) {
        for (int r = 0; r < n; r++, a += 34) {
            out[r] = ~ret_zero32(a);
            ret_others_add(o, a, m);
        }
    }
    /* ret_copy_solid_rows: a (32, 32, 32) chunk src copied into the pad
       whose voxel (1, 1, 1) is dst, and ret_solid_rows of its rows on the
       way: row (x, y) of src (32 voxels along z) to dst + 34 * 34 * x + 34 * y,
       its solid bits to out[34 * (x + 1) + y + 1] */
    static inline void ret_copy_solid_rows_plain(const unsigned short* src, unsigned short* dst,
                                                 unsigned short m, ret_others* o, unsigned int* out) {
        for (int x = 0; x < 32; x++)
            for (int y = 0; y < 32; y++) {
                unsigned short* d = dst + 34 * 34 * x + 34 * y;
                memcpy(d, src + 1024 * x + 32 * y, 64);
                ret_solid_rows_plain(d, 1, m, o, out + 34 * (x + 1) + y + 1);
            }
    }
    /* count 32 x 32 bit matrices transposed (ret_transpose32): matrix i
       from in + i * in_step, its row c to out[i * out_step + c * out_stride] */
    static inline void ret_transpose32_many_plain(const unsigned int* in, int in_step, unsigned int* out,
                                                  int out_stride, int out_step, int count) {
        unsigned int rows[32];
        for (int i = 0; i < count; i++, in += in_step, out += out_step) {
            ret_transpose32(in, rows);
            for (int c = 0; c < 32; c++) out[c * out_stride] = rows[c];
        }
    }
    #if defined(__GNUC__) && defined(__SSE2__) && (defined(__x86_64__) || defined(__i386__)) \
        && !defined(RETICULATE_PORTABLE)
    #include <immintrin.h>
    #include <stdlib.h>
    __attribute__((target("avx2")))
    static void ret_solid_rows_avx2(const unsigned short* a, int n, unsigned short m,
                                    ret_others* o, unsigned int* out) {
        __m256i z = _mm256_setzero_si256(), mm = _mm256_set1_epi16((short)m), acc = z;
        for (int r = 0; r < n; r++, a += 34) {
            __m256i v0 = _mm256_loadu_si256((const __m256i*)a);
            __m256i v1 = _mm256_loadu_si256((const __m256i*)(a + 16));
            __m256i e0 = _mm256_cmpeq_epi16(v0, z), e1 = _mm256_cmpeq_epi16(v1, z);
            acc = _mm256_or_si256(acc, _mm256_andnot_si256(e0, _mm256_xor_si256(v0, mm)));
            acc = _mm256_or_si256(acc, _mm256_andnot_si256(e1, _mm256_xor_si256(v1, mm)));
            /* packs interleaves the two rows' halves by 64-bit quarters: 0, 2, 1, 3 */
            out[r] = ~(unsigned int)_mm256_movemask_epi8(
                _mm256_permute4x64_epi64(_mm256_packs_epi16(e0, e1), 0xD8));
        }
        o->lanes = _mm_or_si128(o->lanes, _mm_or_si128(_mm256_castsi256_si128(acc),
                                                       _mm256_extracti128_si256(acc, 1)));
    }
    __attribute__((target("avx2")))
    static void ret_copy_solid_rows_avx2(const unsigned short* src, unsigned short* dst,
                                         unsigned short m, ret_others* o, unsigned int* out) {
        __m256i z = _mm256_setzero_si256(), mm = _mm256_set1_epi16((short)m), acc = z;
        for (int x = 0; x < 32; x++)
            for (int y = 0; y < 32; y++, src += 32) {
                unsigned short* d = dst + 34 * 34 * x + 34 * y;
                __m256i v0 = _mm256_loadu_si256((const __m256i*)src);
                __m256i v1 = _mm256_loadu_si256((const __m256i*)(src + 16));
                _mm256_storeu_si256((__m256i*)d, v0);
                _mm256_storeu_si256((__m256i*)(d + 16), v1);
                __m256i e0 = _mm256_cmpeq_epi16(v0, z), e1 = _mm256_cmpeq_epi16(v1, z);
                acc = _mm256_or_si256(acc, _mm256_andnot_si256(e0, _mm256_xor_si256(v0, mm)));
                acc = _mm256_or_si256(acc, _mm256_andnot_si256(e1, _mm256_xor_si256(v1, mm)));
                out[34 * (x + 1) + y + 1] = ~(unsigned int)_mm256_movemask_epi8(
                    _mm256_permute4x64_epi64(_mm256_packs_epi16(e0, e1), 0xD8));
            }
        o->lanes = _mm_or_si128(o->lanes, _mm_or_si128(_mm256_castsi256_si128(acc),
                                                       _mm256_extracti128_si256(acc, 1)));
    }
    /* ret_transpose32_many_plain with 32 rows in four vectors: byte b of
       every row packed into one vector (packs and packus work within
       128-bit lanes, the permute puts the rows back in order), then as
       ret_transpose32 */
    __attribute__((target("avx2")))
    static void ret_transpose32_many_avx2(const unsigned int* in, int in_step, unsigned int* out,
                                          int out_stride, int out_step, int count) {
        __m256i low = _mm256_set1_epi32(0xFF), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for (int i = 0; i < count; i++, in += in_step, out += out_step) {
            __m256i q0 = _mm256_loadu_si256((const __m256i*)in);
            __m256i q1 = _mm256_loadu_si256((const __m256i*)(in + 8));
            __m256i q2 = _mm256_loadu_si256((const __m256i*)(in + 16));
            __m256i q3 = _mm256_loadu_si256((const __m256i*)(in + 24));
            for (int b = 0; b < 4; b++) {
                __m128i shift = _mm_cvtsi32_si128(8 * b);
                __m256i w0 = _mm256_and_si256(_mm256_srl_epi32(q0, shift), low);
                __m256i w1 = _mm256_and_si256(_mm256_srl_epi32(q1, shift), low);
                __m256i w2 = _mm256_and_si256(_mm256_srl_epi32(q2, shift), low);
                __m256i w3 = _mm256_and_si256(_mm256_srl_epi32(q3, shift), low);
                __m256i bytes = _mm256_permutevar8x32_epi32(
                    _mm256_packus_epi16(_mm256_packs_epi32(w0, w1), _mm256_packs_epi32(w2, w3)), order);
                for (int c = 8 * b + 7; c >= 8 * b; c--) {
                    out[c * out_stride] = (unsigned int)_mm256_movemask_epi8(bytes);
                    bytes = _mm256_add_epi8(bytes, bytes);
                }
            }
        }
    }
    /* whether the CPU has AVX2 (and the OS keeps its registers), checked
       at the first call; RETICULATE_NO_AVX2 set in the environment says no */
    static int ret_avx2 = -1;
    static inline int ret_use_avx2(void) {
        if (ret_avx2 < 0)
            ret_avx2 = __builtin_cpu_supports("avx2") && getenv("RETICULATE_NO_AVX2") == NULL;
        return ret_avx2;
    }
    static inline int ret_row_kernel(void) { return ret_use_avx2() ? 2 : RET_ROW_KERNEL; }
    static inline void ret_solid_rows(const unsigned short* a, int n, unsigned short m,
                                      ret_others* o, unsigned int* out) {
        if (ret_use_avx2())
            ret_solid_rows_avx2(a, n, m, o, out);
        else
            ret_solid_rows_plain(a, n, m, o, out);
    }
    static inline void ret_copy_solid_rows(const unsigned short* src, unsigned short* dst,
                                           unsigned short m, ret_others* o, unsigned int* out) {
        if (ret_use_avx2())
            ret_copy_solid_rows_avx2(src, dst, m, o, out);
        else
            ret_copy_solid_rows_plain(src, dst, m, o, out);
    }
    static inline void ret_transpose32_many(const unsigned int* in, int in_step, unsigned int* out,
                                            int out_stride, int out_step, int count) {
        if (ret_use_avx2())
            ret_transpose32_many_avx2(in, in_step, out, out_stride, out_step, count);
        else
            ret_transpose32_many_plain(in, in_step, out, out_stride, out_step, count);
    }
    #else
    static inline int ret_row_kernel(void) { return RET_ROW_KERNEL; }
    #define ret_solid_rows ret_solid_rows_plain
    #define ret_transpose32_many ret_transpose32_many_plain
    #define ret_copy_solid_rows ret_copy_solid_rows_plain
    #endif
    """
    int ret_row_kernel() noexcept nogil     # 0 portable C, 1 SSE2, 2 SSE2 and AVX2
    void ret_solid_rows(const uint16_t* a, int n, uint16_t m, ret_others* o, uint32_t* out) noexcept nogil
    void ret_copy_solid_rows(const uint16_t* src, uint16_t* dst, uint16_t m, ret_others* o,
                             uint32_t* out) noexcept nogil
    void ret_transpose32_many(const uint32_t* src, int in_step, uint32_t* dst, int out_stride,
                              int out_step, int count) noexcept nogil
    uint32_t ret_equal32(const uint16_t* a, const uint16_t* b) noexcept nogil
    uint32_t ret_zero32(const uint16_t* a) noexcept nogil
    bint ret_any_nonzero64(const void* p, int n) noexcept nogil    # any non-zero byte in n 64-byte blocks
    ctypedef struct ret_others:     # solid voxels other than a material, over many rows
        pass
    void ret_others_clear(ret_others* o) noexcept nogil
    void ret_others_add(ret_others* o, const uint16_t* a, uint16_t m) noexcept nogil     # a[k], k < 32
    bint ret_others_any(const ret_others* o) noexcept nogil
    void ret_transpose8(const uint16_t* src, int rs, uint16_t* dst, int ds) noexcept nogil
    void ret_transpose32(const uint32_t* src, uint32_t* dst) noexcept nogil


cdef inline uint32_t differ32(const uint16_t* a, const uint16_t* b) noexcept nogil:
    """Bit k: a[k] != b[k], for k < 32."""
    return ~ret_equal32(a, b)


cdef inline uint32_t solid32(const uint16_t* a) noexcept nogil:
    """Bit k: a[k] != 0 (a solid voxel), for k < 32."""
    return ~ret_zero32(a)


cdef inline void _transpose34(const uint16_t* src, int rs, uint16_t* dst, int ds) noexcept nogil:
    """dst[c * ds + r] = src[r * rs + c] for r, c < 34: 8 x 8 blocks, then the last two rows and columns."""
    cdef int r, c
    for r in range(0, 32, 8):
        for c in range(0, 32, 8):
            ret_transpose8(src + r * rs + c, rs, dst + c * ds + r, ds)
    for r in range(32, 34):
        for c in range(34):
            dst[c * ds + r] = src[r * rs + c]
    for r in range(32):
        for c in range(32, 34):
            dst[c * ds + r] = src[r * rs + c]


cdef inline void start_rows(State* st) noexcept nogil:
    """Frame row addressing of st.pad; no transposed slab built yet."""
    st.row_base[0] = st.frame_voxels[0]
    st.row_layer[0], st.row_v[0] = PP, P
    st.row_base[1] = st.pad
    st.row_layer[1], st.row_v[1] = P, PP
    st.row_base[2] = st.frame_voxels[1]
    st.row_layer[2], st.row_v[2] = PP, P
    memset(st.slab_rows_ready, 0, sizeof(st.slab_rows_ready))


cdef inline void ensure_slab_rows(State* st, int a, int slab) noexcept nogil:
    """Make the voxel rows of slab ``slab`` (-1..32) of axis a's frame
    readable: frame 0 transposes its x slab, frame 2 the group of eight z
    slabs holding it (the last group is 32, 33: two slabs)."""
    cdef int k = slab + 1, k0, j, i, kk
    cdef uint16_t* t
    if a == 1 or st.slab_rows_ready[a][k]:
        return
    if a == 0:
        _transpose34(st.pad + k * PP, P, st.frame_voxels[0] + k * PP, P)     # (y, z) -> (z, y)
        st.slab_rows_ready[0][k] = True
        return
    # frame 2: frame_voxels[1][kk * PP + j * P + i] = pad[i * PP + j * P + kk]
    t = st.frame_voxels[1]
    k0 = k & ~7
    if k0 == 32:
        for i in range(P):
            for j in range(P):
                t[32 * PP + j * P + i] = st.pad[i * PP + j * P + 32]
                t[33 * PP + j * P + i] = st.pad[i * PP + j * P + 33]
    else:
        for j in range(P):
            for i in range(0, 32, 8):
                ret_transpose8(st.pad + i * PP + j * P + k0, PP, t + k0 * PP + j * P + i, PP)
            for kk in range(k0, k0 + 8):
                t[kk * PP + j * P + 32] = st.pad[32 * PP + j * P + kk]
                t[kk * PP + j * P + 33] = st.pad[33 * PP + j * P + kk]
    for kk in range(k0, min(k0 + 8, P)):
        st.slab_rows_ready[2][kk] = True


cdef inline const uint16_t* voxel_row(State* st, int a, int layer, int v) noexcept nogil:
    """Voxels (layer, u, v) of axis a's frame at u = 0..31 (layer, v in -1..32;
    entries -1 and 32 of the row are its halo); ensure_slab_rows first."""
    return st.row_base[a] + (layer + 1) * st.row_layer[a] + (v + 1) * st.row_v[a] + 1


cdef inline uint16_t _first_material(const uint16_t* row, int n, int stride) noexcept nogil:
    """The material of the first solid voxel of the n rows of 32 voxels
    row + stride r, or 0."""
    cdef uint32_t solid
    cdef int r
    for r in range(n):
        solid = solid32(row + r * stride)
        if solid:
            return row[r * stride + ret_ctz32(solid)]
    return 0


cdef inline void copy_chunk(State* st, const uint16_t* voxels, uint16_t* interior) noexcept nogil:
    """A standalone chunk's voxels (32, 32, 32), not all empty, into the
    pad's interior (voxel (1, 1, 1) at ``interior``), with its solid rows
    along z into st.solid_z on the way, for the next solid_masks."""
    cdef ret_others others
    cdef uint16_t material = _first_material(voxels, 32 * 32, 32)
    ret_others_clear(&others)
    ret_copy_solid_rows(voxels, interior, material, &others, &st.solid_z[0][0])
    st.copied_one_material = not ret_others_any(&others)
    st.solid_z_copied = True


cdef inline void solid_masks(State* st) noexcept nogil:
    """st.solid[a][slab + 1][v] bit u: voxel (slab, u, v) of axis a's frame
    is solid, for slabs -1..32: rows along z of the pad (st.solid_z, which
    the standalone copy may have filled: copy_chunk), transposed as bit
    matrices for frames 0 and 2.  Also st.one_material: the solid voxels of
    the chunk and of its six face slabs of halo have one material."""
    cdef uint32_t lower, upper
    cdef uint16_t material = 0
    cdef ret_others others
    cdef const uint16_t* row
    cdef uint32_t* solid
    cdef int x, y, y0 = 1 if st.halo_empty else 0
    cdef bint copied = st.solid_z_copied
    st.solid_z_copied = False
    ret_others_clear(&others)
    for x in range(P):
        solid = st.solid_z[x]
        if st.halo_empty and (x == 0 or x == P - 1):
            memset(solid, 0, sizeof(st.solid_z[x]))
        elif not copied:
            # rows y0..P - 1 - y0 (the halo's rows when it is not empty)
            row = st.pad + x * PP + y0 * P + 1
            if material == 0:
                material = _first_material(row, P - 2 * y0, P)
            ret_solid_rows(row, P - 2 * y0, material, &others, solid + y0)
        if y0:
            solid[0] = solid[P - 1] = 0
        if 1 <= x <= 32:
            # frame 1 (y; z, x): slab y, row x, bit z
            for y in range(P):
                st.solid[1][y][x - 1] = solid[y]
    st.one_material = st.copied_one_material if copied else not ret_others_any(&others)
    # frame 0 (x; y, z): slab x, row z, bit y
    ret_transpose32_many(&st.solid_z[0][1], P, &st.solid[0][0][0], 1, 32, P)
    # frame 2 (z; x, y): slab z, row y, bit x, from frame 1's slabs y (rows
    # x, bit z); slabs -1 and 32 are the z halo
    ret_transpose32_many(&st.solid[1][1][0], 32, &st.solid[2][1][0], 32, 1, 32)
    for y in range(32):
        lower = upper = 0
        if not st.halo_empty:
            for x in range(32):
                row = st.pad + (x + 1) * PP + (y + 1) * P
                lower |= (<uint32_t>(row[0] != 0)) << x
                upper |= (<uint32_t>(row[33] != 0)) << x
                if (row[0] != 0 and row[0] != material) or (row[33] != 0 and row[33] != material):
                    st.one_material = False
        st.solid[2][0][y] = lower
        st.solid[2][33][y] = upper
