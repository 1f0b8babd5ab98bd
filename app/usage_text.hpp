#pragma once
// The command line's usage texts, the one source of `--help` and of the manual page
// (packaging/manual_page: qkv-studio.1 is made from these at build time, so they never differ).
//
// Their layout is what the manual page generator reads: "Usage:" lines and their continuations,
// paragraphs, option lines ("  --name ARG" then the description from column 30, continued on
// lines indented to it) and "Heading:" lines.

namespace qkv::app {

// `qkv-studio --help`: the app and its commands.
const char* mainUsage();

// `qkv-studio export --help`.
const char* exportUsage();

// `qkv-studio figure --help`.
const char* figureUsage();

// `qkv-studio train --help`.
const char* trainUsage();

}  // namespace qkv::app
