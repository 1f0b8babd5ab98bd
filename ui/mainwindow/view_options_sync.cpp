#include "ui/mainwindow/view_options_sync.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ui/document/document.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/heads/heads_view.hpp"
#include "ui/heads/score_kind.hpp"
#include "ui/mainwindow/view_tabs.hpp"
#include "ui/render/colormap.hpp"
#include "ui/views/result_view.hpp"

namespace qkv::ui {

ViewOptionsSync::ViewOptionsSync(Document* document, HeadSelection* selection, ViewTabs* tabs, QObject* parent)
    : QObject(parent), document_(document), selection_(selection), tabs_(tabs)
{
    HeadsView* heads = tabs_->headsView();
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int index) {
        if (index < 0 || index >= static_cast<int>(tabs_->views().size())) return;
        const QString id = tabs_->views()[static_cast<std::size_t>(index)]->id();
        update([&](qkv::ViewOptions& v) { v.tab = id.toStdString(); });
    });
    connect(selection_, &HeadSelection::headChanged, this, [this](int head) { update([&](qkv::ViewOptions& v) { v.head = head; }); });
    connect(selection_, &HeadSelection::cellChanged, this, [this](int query, int key) {
        update([&](qkv::ViewOptions& v) {
            v.query = query;
            v.key = key;
        });
    });
    connect(heads, &HeadsView::scoreKindChanged, this, [this](ScoreKind kind) {
        update([&](qkv::ViewOptions& v) { v.show = scoreKindId(kind).toStdString(); });
    });
    connect(heads, &HeadsView::colormapChanged, this, [this](ColormapName name) {
        update([&](qkv::ViewOptions& v) { v.colormap = Colormap::get(name).id().toStdString(); });
    });
    connect(heads, &HeadsView::showAverageChanged, this, [this](bool on) { update([&](qkv::ViewOptions& v) { v.averageOfHeads = on; }); });
    connect(heads, &HeadsView::zoomChanged, this, [this](double zoom) { update([&](qkv::ViewOptions& v) { v.zoom = zoom; }); });
    connect(heads, &HeadsView::colorRangeChanged, this,
            [this](const qkv::ColorRange& range) { update([&](qkv::ViewOptions& v) { v.colorRange = range; }); });
    connect(document_, &Document::viewOptionsReplaced, this, &ViewOptionsSync::apply);
}

void ViewOptionsSync::select(const qkv::ViewOptions& view, const qkv::Result* inside)
{
    auto head = static_cast<int>(view.head), query = static_cast<int>(view.query), key = static_cast<int>(view.key);
    if (inside) {  // clamped before it is set: each view refreshes once at most
        const qkv::AttentionResult& a = inside->attention;
        head = std::clamp(head, 0, std::max(static_cast<int>(a.headCount()) - 1, 0));
        query = std::clamp(query, 0, std::max(static_cast<int>(a.queryCount()) - 1, 0));
        key = std::clamp(key, 0, std::max(static_cast<int>(a.keyCount()) - 1, 0));
    }
    const bool applying = std::exchange(applying_, true);  // the document already holds `view`
    selection_->setHead(head);
    selection_->setCell(query, key);
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
    HeadsView* heads = tabs_->headsView();
    ScoreKind kind = ScoreKind::Attention;
    if (scoreKindFromId(QString::fromStdString(view.show), kind)) heads->setScoreKind(kind);
    ColormapName colormap = ColormapName::Viridis;
    if (colormapFromId(QString::fromStdString(view.colormap), colormap)) heads->setColormap(colormap);
    heads->setShowAverage(view.averageOfHeads);
    if (std::isfinite(view.zoom) && view.zoom > 0) heads->setZoom(view.zoom);
    heads->setColorRange(view.colorRange);  // ignores a fixed range whose low is not below its high
    applying_ = false;
}

}  // namespace qkv::ui
