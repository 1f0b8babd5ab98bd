#pragma once
// The text of resources/lexicon/lexicon.txt, compiled into the library. The definition is
// generated at configure time (core/embedding/CMakeLists.txt, builtin_lexicon_text.cpp.in);
// editing the .txt and rebuilding picks the change up. Read it through Lexicon::builtIn().

#include <string_view>

namespace qkv {

std::string_view builtInLexiconText();

}  // namespace qkv
