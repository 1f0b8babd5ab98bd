#include "core/config/examples.hpp"

namespace qkv {

Config builtInExample()
{
    Config config;
    config.sourceText = "The cat sat on the mat because it was tired.";
    config.targetText = "Le chat s'est assis sur le tapis parce qu'il était fatigué.";
    config.mode = AttentionMode::Cross;
    config.d_model = 64;
    config.headCount = 4;
    config.seed = 2017;
    return config;
}

}  // namespace qkv
