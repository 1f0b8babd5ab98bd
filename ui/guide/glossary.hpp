#pragma once
// The symbols of "Attention Is All You Need" as the app uses them (docs/architecture.md, "Numerical conventions"), for
// the student guide's glossary page.

#include <QString>

#include <vector>

namespace qkv::ui {

struct GlossaryEntry {
    QString symbol;   // rich text: "W<sub>i</sub><sup>Q</sup>"
    QString meaning;  // rich text, with its shape where it has one
};

// In reading order: the sentences, the projections, the heads, the scores, the factored W_i.
const std::vector<GlossaryEntry>& glossaryEntries();

// The entries as one rich-text table.
QString glossaryHtml();

}  // namespace qkv::ui
