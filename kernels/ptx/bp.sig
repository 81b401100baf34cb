extern "C" __global__ void bp_field(const uint32_t* in_offsets, const uint32_t* in_edge, const float* messages, const float* log_prior, float* field, uint32_t num_vertices)
extern "C" __global__ void bp_field_classified(const uint32_t* in_offsets, const uint32_t* in_edge, const float* messages, const float* log_prior, float* field, const uint32_t* lists, uint32_t num_small, uint32_t num_medium, uint32_t small_blocks, uint32_t medium_blocks)
extern "C" __global__ void bp_messages(const uint32_t* edge_source, const uint32_t* col_indices, const uint32_t* reverse, const float* field, const float* messages, float* next, uint32_t num_edges)
extern "C" __global__ void bp_beliefs(const float* field, float* belief, uint32_t num_vertices)
