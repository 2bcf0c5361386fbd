/* conv2d and its two backward products on CUDA memory: the column kernels
 * (native/cuda/conv.cu) and one strided-batched cuBLAS product per group.
 *   forward          out_n,g (Og x L) = W_g (Og x K) @ col_n (K x L), batched over n
 *   backward input   col_n = W_g^T @ grad_n,g, batched over n, then col2im
 *   backward weight  dW_g (Og x K) = grad^T_g (Og x N*L) @ col^T (N*L x K), the columns
 *                    laid out (K, N, L) and grad permuted to (O, N, L) so one product
 *                    sums over the samples */
#include "cuda_host.h"
#include "cuda_kernels.h"
#include "conv_cols.h"
#include "conv.h"
#include "gemm.h"

static lm_cuda_conv_geom geom_of(const lm_conv_geom *G) {
    lm_cuda_conv_geom c = {G->N, G->C, G->H, G->W, G->O, G->kh, G->kw, G->OH, G->OW, G->sh, G->sw, G->ph, G->pw,
                           G->dh, G->dw, G->g, G->Cg, G->Og, G->K, G->L};
    return c;
}

static void borrowed(void *ctx) { (void)ctx; }   /* the memory belongs to the caller */

int lm_cuda_conv_run(int kind, const void *geom, int dt, const char *a, const char *b, const char *bias,
                     int64_t bias_stride, char *out) {
    const lm_conv_geom *G = geom;
    static lm_cuda_im2col_fn im2col;
    static lm_cuda_im2col_fn col2im;
    static lm_cuda_bias_fill_fn bias_fill;
    if ((!im2col && !(im2col = (lm_cuda_im2col_fn)lm_cuda_kernel("im2col"))) ||
        (!col2im && !(col2im = (lm_cuda_im2col_fn)lm_cuda_kernel("col2im"))) ||
        (!bias_fill && !(bias_fill = (lm_cuda_bias_fill_fn)lm_cuda_kernel("bias_fill"))))
        return -1;
    lm_cuda_conv_geom g = geom_of(G);
    int64_t N = G->N, K = G->K, L = G->L, O = G->O, Og = G->Og, item = (int64_t)lm_itemsize(dt);
    int64_t ncol = N * K * L;
    lm_tensor *col = lm_empty(1, &ncol, dt, LM_CUDA), *gt = NULL;
    if (!col) return -1;
    char *c = lm_bytes(col);
    int err = 0;
    if (kind == LM_CONV_FORWARD) {
        if (bias) err = lm_cuda_check(bias_fill(dt, N, O, L, bias, bias_stride, out), "conv2d");
        for (int64_t q = 0; q < G->g && !err; q++) {
            err = lm_cuda_check(im2col(dt, &g, a, q, c, K * L, L), "conv2d") ||
                  lm_cuda_gemm(dt, Og, L, K, (lm_mat){b + q * Og * K * item, K, 1}, (lm_mat){c, L, 1},
                               out + q * Og * L * item, L, bias != NULL, N, 0, K * L, O * L);
        }
    } else if (kind == LM_CONV_BACKWARD_INPUT) {
        for (int64_t q = 0; q < G->g && !err; q++) {
            err = lm_cuda_gemm(dt, K, L, Og, (lm_mat){b + q * Og * K * item, 1, K}, (lm_mat){a + q * Og * L * item, L, 1},
                               c, L, false, N, 0, O * L, K * L) ||
                  lm_cuda_check(col2im(dt, &g, c, q, out, K * L, L), "conv2d_backward_input");
        }
    } else {
        /* grad (N, O, L) -> (O, N, L): one device copy through a transposed view */
        int64_t shape[3] = {N, O, L}, strides[3] = {O * L, L, 1}, tshape[3] = {O, N, L}, tstrides[3] = {L, O * L, 1};
        lm_tensor *grad = lm_from_blob((void *)a, 3, shape, strides, dt, LM_CUDA, borrowed, NULL);
        lm_tensor *view = grad ? lm_view(grad, 3, tshape, tstrides, 0) : NULL;
        gt = view ? lm_empty(3, tshape, dt, LM_CUDA) : NULL;
        err = !gt || lm_copy_into(gt, view);
        lm_release(view);
        lm_release(grad);
        for (int64_t q = 0; q < G->g && !err; q++) {
            err = lm_cuda_check(im2col(dt, &g, b, q, c, L, N * L), "conv2d_backward_weight") ||
                  lm_cuda_gemm(dt, Og, K, N * L, (lm_mat){lm_bytes(gt) + q * Og * N * L * item, N * L, 1},
                               (lm_mat){c, 1, N * L}, out + q * Og * K * item, K, false, 1, 0, 0, 0);
        }
    }
    lm_release(col);
    lm_release(gt);
    return err ? -1 : 0;
}
