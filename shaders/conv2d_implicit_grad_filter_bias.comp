#version 450
// conv2d_implicit_grad_filter_bias: conv2d_implicit_grad_filter's product with one row
// more, the sums over every position of dy's columns (conv_implicit_grad_filter.glsl's
// column of ones), added to db as df's rows are added to df.
#extension GL_GOOGLE_include_directive : require
#define TDM_KERNEL_conv2d_implicit_grad_filter_bias
#include "kernel_bindings.glsl"

TDM_VIEW(db);

// The product's last row into db, columns col0 .. col0 + 3 of it; no other row.
bool tdm_gemm_store_elsewhere(uint row, uint col0, vec4 v)
{
    if (row != TDM_U_kh * TDM_U_kw * TDM_U_c)
        return false;
    for (uint i = 0u; i < 4u; i++)
        if (col0 + i < TDM_U_oc)
            db[TDM_OFF_db + col0 + i] = v[i] + db[TDM_OFF_db + col0 + i];
    return true;
}
#define TDM_GEMM_STORE_ELSEWHERE
#define TDM_BIAS_ROW

#include "conv_implicit_grad_filter.glsl"
