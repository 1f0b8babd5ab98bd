// qkv-manual-page VERSION DATE DATA_DIR OUT: writes the manual page (a build step; not installed).

#include <cstdio>
#include <fstream>

#include "packaging/manual_page.hpp"

int main(int argc, char** argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: qkv-manual-page VERSION DATE DATA_DIR OUT\n");
        return 2;
    }
    std::ofstream out(argv[4], std::ios::binary | std::ios::trunc);
    out << qkv::packaging::manualPage({argv[1], argv[2], argv[3]});
    out.close();
    if (!out) {
        std::fprintf(stderr, "qkv-manual-page: cannot write %s\n", argv[4]);
        return 1;
    }
    return 0;
}
