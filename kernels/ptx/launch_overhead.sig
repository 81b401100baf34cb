extern "C" __global__ void launch_increment(uint32_t* counter)
