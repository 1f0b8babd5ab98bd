#include "ui/mainwindow/view_options_sync.hpp"

#include <algorithm>
#include <utility>

#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui {

ViewOptionsSync::ViewOptionsSync(Document* document, HeadSelection* selection, ViewTabs* tabs, QObject* parent)
    : QObject(parent), document_(document), selection_(selection), tabs_(tabs)
{
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int index) {
        if (index < 0 || index >= static_cast<int>(tabs_->views().size())) return;
        const QString id = tabs_->views()[static_cast<std::size_t>(index)]->id();
        update([&](qkv::ViewOptions& v) { v.tab = id.toStdString(); });
    });
    connect(selection_, &HeadSelection::headChanged, this,
            [this](int head) { update([&](qkv::ViewOptions& v) { v.head = head; }); });
    connect(selection_, &HeadSelection::cellChanged, this, [this](int query, int key) {
        update([&](qkv::ViewOptions& v) {
            v.query = query;
            v.key = key;
        });
    });
    connect(selection_, &HeadSelection::querySpanChanged, this, [this](int first, int end) {
        update([&](qkv::ViewOptions& v) {
            v.query = first;
            v.querySpanEnd = end > first + 1 ? end : 0;
        });
    });
    connect(tabs_, &ViewTabs::viewOptionsChanged, this,
            [this](ResultView* view) { update([view](qkv::ViewOptions& v) { view->saveOptions(v); }); });
    connect(document_, &Document::viewOptionsReplaced, this, &ViewOptionsSync::apply);
}

void ViewOptionsSync::select(const qkv::ViewOptions& view, const qkv::Result* inside)
{
    auto head = static_cast<int>(view.head), query = static_cast<int>(view.query), key = static_cast<int>(view.key);
    auto spanEnd = static_cast<int>(std::max(view.querySpanEnd, view.query + 1));
    if (inside) {  // clamped before it is set: each view refreshes once at most
        const qkv::AttentionResult& a = inside->attention;
        head = std::clamp(head, 0, std::max(static_cast<int>(a.headCount()) - 1, 0));
        query = std::clamp(query, 0, std::max(static_cast<int>(a.queryCount()) - 1, 0));
        key = std::clamp(key, 0, std::max(static_cast<int>(a.keyCount()) - 1, 0));
        spanEnd = std::clamp(spanEnd, query + 1, std::max(static_cast<int>(a.queryCount()), query + 1));
    }
    const bool applying = std::exchange(applying_, true);  // the document already holds `view`
    selection_->setHead(head);
    selection_->setCell(query, key);
    selection_->setQuerySpan(query, spanEnd);
    applying_ = applying;
}

void ViewOptionsSync::update(const std::function<void(qkv::ViewOptions&)>& change)
{
    if (applying_) return;
    qkv::ViewOptions view = document_->viewOptions();
    change(view);
    document_->setViewOptions(view);
}

void ViewOptionsSync::apply(const qkv::ViewOptions& view)
{
    applying_ = true;
    if (ResultView* tab = tabs_->view(QString::fromStdString(view.tab))) tabs_->setCurrentWidget(tab);
    // The views still show the last document's result: a head or cell of the new document may
    // lie outside it, and a view would index past its matrices. Kept inside it now, and set as
    // the file says once the new document's result is shown (computed now or in the background).
    select(view, tabs_->views().front()->result().get());
    disconnect(pendingSelection_);
    pendingSelection_ = connect(document_, &Document::resultChanged, this,
                                [this, view](const std::shared_ptr<const qkv::Result>& result) {
                                    disconnect(pendingSelection_);
                                    select(view, result.get());
                                });
    for (ResultView* each : tabs_->views()) each->restoreOptions(view);
    applying_ = false;
}

}  // namespace qkv::ui
