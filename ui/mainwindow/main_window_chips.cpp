// The main window's wiring of the sentences' token chips to the shared selection
// (main_window.hpp, connectTokenChips).
#include <algorithm>

#include "ui/controls/controls_panel.hpp"
#include "ui/controls/sentence_field.hpp"
#include "ui/controls/token_chips.hpp"
#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/mainwindow/main_window.hpp"

namespace qkv::ui {

void MainWindow::connectTokenChips()
{
    // A chip of the sentence that gives the queries selects that query (shift-click or a drag:
    // several together); one of the sentence that gives the keys selects that key. Each field
    // highlights what is selected of it.
    const auto choose = [this](bool target, int first, int end) {
        const std::shared_ptr<const qkv::Result> shown = document_->result();
        if (!shown) return;
        const qkv::Config& config = document_->config();
        if ((target ? config.queriesFromTarget() : !config.queriesFromTarget())) {
            const int queries = static_cast<int>(shown->attention.queryCount());
            if (first >= queries) return;
            selection_->setQuerySpan(first, std::min(end, queries));
        } else if (first < shown->attention.keyCount()) {
            selection_->setKey(first);
        }
    };
    connect(controls_->sourceField()->chips(), &TokenChips::chipsChosen, this,
            [choose](int first, int end) { choose(false, first, end); });
    connect(controls_->targetField()->chips(), &TokenChips::chipsChosen, this,
            [choose](int first, int end) { choose(true, first, end); });
    const auto highlight = [this] {
        const qkv::Config& config = document_->config();
        const int query = selection_->queryRow(), key = selection_->keyColumn();
        for (const bool target : {false, true}) {
            TokenChips* chips = (target ? controls_->targetField() : controls_->sourceField())->chips();
            chips->setHighlighted(0, 0);
            if (target == config.queriesFromTarget()) {
                chips->setHighlighted(query, selection_->querySpanEnd());
                chips->scrollToToken(query);  // a long text's strip brings the selected query into view
            } else if (target == config.keysFromTarget()) {
                chips->setHighlighted(key, key + 1);
            }
        }
    };
    connect(selection_, &HeadSelection::cellChanged, this, highlight);
    connect(selection_, &HeadSelection::querySpanChanged, this, highlight);
    connect(document_, &Document::configChanged, this, highlight);
}

}  // namespace qkv::ui
