#include "ui/views/result_view.hpp"

#include <QEvent>
#include <QLabel>

#include <algorithm>
#include <utility>

#include "ui/background/release_later.hpp"
#include "ui/document/head_selection.hpp"
#include "ui/figures/figure.hpp"
#include "ui/figures/figure_text.hpp"

namespace qkv::ui {

ResultView::ResultView(HeadSelection* selection, Changes follows, QWidget* parent)
    : QWidget(parent), selection_(selection ? selection : new HeadSelection(this))
{
    if (follows.testFlag(Change::Head))
        connect(selection_, &HeadSelection::headChanged, this, [this] { invalidate(Change::Head); });
    if (follows.testFlag(Change::Cell)) {
        connect(selection_, &HeadSelection::cellChanged, this, [this] { invalidate(Change::Cell); });
        // Several queries selected together are a change of the selected cell too.
        connect(selection_, &HeadSelection::querySpanChanged, this, [this] { invalidate(Change::Cell); });
    }
}

void ResultView::saveOptions(qkv::ViewOptions&) const {}

void ResultView::saveFigureOptions(FigureOptions&) const {}

void ResultView::restoreOptions(const qkv::ViewOptions&) {}

QList<QAction*> ResultView::viewMenuActions() const { return {}; }

bool ResultView::drawsLongLayers() const { return false; }

QString ResultView::longLayerText(const qkv::Result& result) const { return longLayerNote(result); }

void ResultView::setResult(std::shared_ptr<const qkv::Result> result)
{
    releaseLater(std::exchange(result_, std::move(result)));
    invalidate(Change::Result);
}

void ResultView::invalidate(Changes changes)
{
    stale_ |= changes;
    refreshIfDue();
}

void ResultView::ensureCurrent()
{
    if (!refreshing_) refreshNow();
}

void ResultView::beginUpdate() { ++held_; }

void ResultView::endUpdate()
{
    if (held_ > 0 && --held_ == 0) refreshIfDue();
}

bool ResultView::coverForLongLayer()
{
    const bool cover = result_ && result_->streamed() && !drawsLongLayers();
    if (!cover) {
        if (cover_) cover_->hide();
        stale_ |= std::exchange(covered_, Changes());
        return false;
    }
    covered_ |= std::exchange(stale_, Changes());
    if (!cover_) {
        // Plain text on the view's own background, over everything the view drew.
        cover_ = new QLabel(this);
        cover_->setObjectName(QStringLiteral("longLayerCover"));
        cover_->setTextFormat(Qt::PlainText);
        cover_->setWordWrap(true);
        cover_->setAlignment(Qt::AlignCenter);
        cover_->setMargin(24);
        cover_->setAutoFillBackground(true);
    }
    cover_->setText(longLayerText(*result_));
    placeCover();
    cover_->raise();
    cover_->show();
    return true;
}

void ResultView::placeCover()
{
    // Over the whole view; the text in a column a reader's eye can follow (about 80 characters).
    cover_->setGeometry(rect());
    const int column = 80 * cover_->fontMetrics().averageCharWidth();
    const int side = std::max(0, (width() - column) / 2);
    cover_->setContentsMargins(side, 0, side, 0);
}

bool ResultView::event(QEvent* event)
{
    if (event->type() == QEvent::Resize && cover_) placeCover();
    const bool handled = QWidget::event(event);
    // Show: the view appears (its tab was chosen, its window shown). ShowToParent: the view
    // became the page its not-yet-shown window will show.
    if (event->type() == QEvent::Show || event->type() == QEvent::ShowToParent) refreshIfDue();
    return handled;
}

bool ResultView::isOnScreenOrDue() const { return isWindow() || isVisibleTo(window()); }

void ResultView::refreshIfDue()
{
    if (held_ == 0 && !refreshing_ && isOnScreenOrDue()) refreshNow();
}

void ResultView::refreshNow()
{
    if (coverForLongLayer()) return;
    refreshing_ = true;
    // A change made by refresh() itself (the view setting the selection) is refreshed after it.
    while (isStale()) {
        const Changes changes = std::exchange(stale_, Changes());
        refresh(changes);
        emit refreshed(changes);
    }
    refreshing_ = false;
}

}  // namespace qkv::ui
