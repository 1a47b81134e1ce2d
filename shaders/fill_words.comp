#version 450
// Fills word_count 32-bit words from first_word with a repeating pattern:
// word i (counted from first_word) gets pattern[i % pattern_words].
// A grid-stride loop, so that any count fits within the work-group limit.

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Words {
    uint words[];
};

layout(push_constant) uniform Fill {
    uint first_word;
    uint word_count;
    uint pattern_words;
    uint pattern[16];
} fill;

void main()
{
    uint stride = gl_NumWorkGroups.x * 64u;
    for (uint i = gl_GlobalInvocationID.x; i < fill.word_count; i += stride)
        words[fill.first_word + i] = fill.pattern[i % fill.pattern_words];
}
