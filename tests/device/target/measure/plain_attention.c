// SPDX-License-Identifier: BSL-1.0
/* The measured model's forward pass in plain C, as a C programmer would write it: the chapter's
 * causal MultiHeadAttention (d_in = d_out = 16, 4 heads of 4, 8 tokens), triple loops over
 * float arrays, expf and sqrtf from the C library, the activations (queries, keys, values,
 * context: 2 KiB) on the stack. Built with the same flags as the library's code; the point of
 * comparison for instructions and stack (docs/embedded.md). */
#include <math.h>

#define N 8        /* tokens */
#define D 16       /* d_in = d_out */
#define H 4        /* heads */
#define HD (D / H) /* head_dim */

/* y = x W^T for an N x D input and a D x D weight in nn.Linear's layout. */
static void linear(const float* x, const float* w, float y[N][D]) {
  for (int i = 0; i < N; ++i) {
    for (int o = 0; o < D; ++o) {
      float acc = 0.0f;
      for (int k = 0; k < D; ++k) {
        acc += x[i * D + k] * w[o * D + k];
      }
      y[i][o] = acc;
    }
  }
}

void plain_forward(const float* x, const float* w_query, const float* w_key, const float* w_value, const float* w_out,
                   const float* b_out, float* out) {
  float q[N][D], k[N][D], v[N][D], context[N][D];
  linear(x, w_query, q);
  linear(x, w_key, k);
  linear(x, w_value, v);
  const float scale = sqrtf((float)HD);
  for (int h = 0; h < H; ++h) {
    for (int i = 0; i < N; ++i) {
      float s[N];
      float max = -INFINITY;
      for (int j = 0; j <= i; ++j) { /* causal: token i sees tokens 0..i */
        float dot = 0.0f;
        for (int d = 0; d < HD; ++d) {
          dot += q[i][h * HD + d] * k[j][h * HD + d];
        }
        s[j] = dot / scale;
        if (s[j] > max) {
          max = s[j];
        }
      }
      float sum = 0.0f;
      for (int j = 0; j <= i; ++j) {
        s[j] = expf(s[j] - max);
        sum += s[j];
      }
      for (int d = 0; d < HD; ++d) {
        float acc = 0.0f;
        for (int j = 0; j <= i; ++j) {
          acc += s[j] * v[j][h * HD + d];
        }
        context[i][h * HD + d] = acc / sum;
      }
    }
  }
  for (int i = 0; i < N; ++i) {
    for (int o = 0; o < D; ++o) {
      float acc = b_out[o];
      for (int c = 0; c < D; ++c) {
        acc += context[i][c] * w_out[o * D + c];
      }
      out[i * D + o] = acc;
    }
  }
}
