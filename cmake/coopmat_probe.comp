#version 450
// The least shader that needs a compiler knowing GL_KHR_cooperative_matrix
// (cmake/CoopmatCompiler.cmake compiles it at configure time).
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
layout(local_size_x = 32) in;
layout(std430, binding = 0) buffer Out { float out_values[]; };
void main()
{
    coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator> sums =
        coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>(1.0);
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA> a =
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>(1.0);
    coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB> b =
        coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>(1.0);
    sums = coopMatMulAdd(a, b, sums);
    coopMatStore(sums, out_values, 0, 16, gl_CooperativeMatrixLayoutRowMajor);
}
