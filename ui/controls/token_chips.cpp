#include "ui/controls/token_chips.hpp"

#include <QFontMetrics>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QWheelEvent>

#include <algorithm>

#include "ui/figures/shown_text.hpp"

namespace qkv::ui {
namespace {
constexpr int kHPad = 5, kVPad = 2, kSpacing = 3;
// The joined tokens make the tool tip only while short enough to read in one.
constexpr int kToolTipTokens = 200;
}  // namespace

TokenChips::TokenChips(QWidget* parent) : QWidget(parent), scroll_(new QScrollBar(Qt::Vertical, this))
{
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    QFont small = font();
    small.setPointSizeF(std::max(7.0, font().pointSizeF() * 0.9));
    setFont(small);
    scroll_->hide();
    scroll_->setSingleStep(1);
    setFocusPolicy(Qt::StrongFocus);  // tokens are chosen from the keyboard too (keyPressEvent)
    connect(scroll_, &QScrollBar::valueChanged, this, [this] { update(); });
}

QString TokenChips::itemText(int item) const
{
    if (item == 0)
        return tokens_.size() == 1 ? tr("1 token") : tr("%n tokens", nullptr, static_cast<int>(tokens_.size()));
    return tokens_[item - 1];
}

void TokenChips::setTokens(const QStringList& tokens, const std::vector<bool>& outside)
{
    if (tokens == tokens_ && outside == outside_) return;
    tokens_ = tokens;
    outside_ = outside;
    setToolTip(tokens_.isEmpty() || tokens_.size() > kToolTipTokens
                   ? QString()
                   : plainAsRichText(tokens_.join(QStringLiteral(" · "))));
    // Measured once per text: a pasted article's 32,768 chips are laid out from these widths.
    const QFontMetrics metrics(font());
    widths_.resize(static_cast<std::size_t>(tokens_.size()) + 1);
    for (int item = 0; item <= tokens_.size(); ++item)
        widths_[static_cast<std::size_t>(item)] = metrics.horizontalAdvance(itemText(item)) + 2 * kHPad + 2;
    highlightFirst_ = std::min<int>(highlightFirst_, static_cast<int>(tokens_.size()));
    highlightEnd_ = std::min<int>(highlightEnd_, static_cast<int>(tokens_.size()));
    relayout();
    updateGeometry();
}

void TokenChips::setHighlighted(int first, int end)
{
    if (first == highlightFirst_ && end == highlightEnd_) return;
    highlightFirst_ = first;
    highlightEnd_ = end;
    // Chosen elsewhere (a heatmap's arrows): the keyboard goes on from there.
    if (first < end && (cursor_ < first || cursor_ >= end)) cursor_ = anchor_ = first;
    update();
}

int TokenChips::rowHeight() const { return QFontMetrics(font()).height() + 2 * kVPad + kSpacing; }

void TokenChips::layoutRows(int width, std::vector<int>* x, std::vector<Row>* rows) const
{
    x->assign(widths_.size(), 0);
    rows->clear();
    rows->push_back({0});
    int at = 0;
    for (std::size_t item = 0; item < widths_.size(); ++item) {
        const int chipWidth = std::min(widths_[item], std::max(width, 20));
        if (at > 0 && at + chipWidth > width) {
            at = 0;
            rows->push_back({static_cast<int>(item)});
        }
        (*x)[item] = at;
        at += chipWidth + kSpacing;
    }
}

int TokenChips::textWidth() const { return scroll_->isHidden() ? width() : width() - scroll_->sizeHint().width(); }

void TokenChips::relayout()
{
    layoutRows(width(), &x_, &rows_);
    const bool scrolls = static_cast<int>(rows_.size()) > kMaxRows;
    if (scrolls) layoutRows(width() - scroll_->sizeHint().width(), &x_, &rows_);
    scroll_->setVisible(scrolls);
    scroll_->setGeometry(width() - scroll_->sizeHint().width(), 0, scroll_->sizeHint().width(), height());
    scroll_->setRange(0, std::max(0, static_cast<int>(rows_.size()) - kMaxRows));
    scroll_->setPageStep(kMaxRows);
    update();
}

int TokenChips::heightForWidth(int width) const
{
    std::vector<int> x;
    std::vector<Row> rows;
    layoutRows(width, &x, &rows);
    return std::min<int>(static_cast<int>(rows.size()), kMaxRows) * rowHeight() - kSpacing;
}

QSize TokenChips::sizeHint() const { return {240, heightForWidth(240)}; }

QSize TokenChips::minimumSizeHint() const { return {60, QFontMetrics(font()).height() + 2 * kVPad}; }

void TokenChips::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    relayout();
}

int TokenChips::firstVisibleRow() const { return scroll_->isHidden() ? 0 : scroll_->value(); }

QRect TokenChips::chipRect(int token) const
{
    const int item = token + 1;
    if (token < 0 || item >= static_cast<int>(x_.size())) return {};
    const auto after = std::upper_bound(rows_.begin(), rows_.end(), item,
                                        [](int value, const Row& row) { return value < row.first; });
    const int row = static_cast<int>(after - rows_.begin()) - 1 - firstVisibleRow();
    if (row < 0 || row >= kMaxRows) return {};
    const int chipWidth = std::min(widths_[static_cast<std::size_t>(item)], std::max(textWidth(), 20));
    return {x_[static_cast<std::size_t>(item)], row * rowHeight(), chipWidth, rowHeight() - kSpacing};
}

void TokenChips::scrollToToken(int token)
{
    const int item = token + 1;
    if (scroll_->isHidden() || token < 0 || item >= static_cast<int>(x_.size())) return;
    const auto after = std::upper_bound(rows_.begin(), rows_.end(), item,
                                        [](int value, const Row& row) { return value < row.first; });
    const int row = static_cast<int>(after - rows_.begin()) - 1;
    if (row < scroll_->value() || row >= scroll_->value() + kMaxRows) scroll_->setValue(row - kMaxRows / 2);
}

int TokenChips::tokenAt(const QPoint& point) const
{
    const int row = point.y() / rowHeight() + firstVisibleRow();
    if (point.y() < 0 || row >= static_cast<int>(rows_.size())) return -1;
    const int end = row + 1 < static_cast<int>(rows_.size()) ? rows_[static_cast<std::size_t>(row) + 1].first
                                                             : static_cast<int>(x_.size());
    for (int item = std::max(1, rows_[static_cast<std::size_t>(row)].first); item < end; ++item)
        if (QRect r = chipRect(item - 1); r.contains(point)) return item - 1;
    return -1;
}

void TokenChips::wheelEvent(QWheelEvent* event)
{
    if (scroll_->isHidden()) return QWidget::wheelEvent(event);
    scroll_->setValue(scroll_->value() - event->angleDelta().y() / 40);
    event->accept();
}

void TokenChips::mousePressEvent(QMouseEvent* event)
{
    const int token = tokenAt(event->position().toPoint());
    if (event->button() != Qt::LeftButton || token < 0) return QWidget::mousePressEvent(event);
    if ((event->modifiers() & Qt::ShiftModifier) && anchor_ >= 0 && anchor_ < tokens_.size()) {
        emit chipsChosen(std::min(anchor_, token), std::max(anchor_, token) + 1);
        return;
    }
    anchor_ = token;
    cursor_ = token;
    dragging_ = true;
    emit chipsChosen(token, token + 1);
}

void TokenChips::mouseMoveEvent(QMouseEvent* event)
{
    if (!dragging_ || !(event->buttons() & Qt::LeftButton)) return QWidget::mouseMoveEvent(event);
    const int token = tokenAt(event->position().toPoint());
    if (token >= 0) emit chipsChosen(std::min(anchor_, token), std::max(anchor_, token) + 1);
}

void TokenChips::mouseReleaseEvent(QMouseEvent* event)
{
    dragging_ = false;
    QWidget::mouseReleaseEvent(event);
}

void TokenChips::keyPressEvent(QKeyEvent* event)
{
    const int count = static_cast<int>(tokens_.size());
    if (count == 0) return QWidget::keyPressEvent(event);
    // The keyboard's token: the end of the last choice that moved (a click's, or the highlight's).
    const int current = cursor_ >= 0 && cursor_ < count ? cursor_
                        : highlightFirst_ < highlightEnd_ ? std::clamp(highlightFirst_, 0, count - 1) : -1;
    int next = current;
    switch (event->key()) {
    case Qt::Key_Left: next = current < 0 ? 0 : current - 1; break;
    case Qt::Key_Right: next = current + 1; break;
    case Qt::Key_Home: next = 0; break;
    case Qt::Key_End: next = count - 1; break;
    default: return QWidget::keyPressEvent(event);
    }
    next = std::clamp(next, 0, count - 1);
    const bool extend = (event->modifiers() & Qt::ShiftModifier) && anchor_ >= 0 && anchor_ < count;
    if (!extend) anchor_ = next;
    cursor_ = next;
    scrollToToken(next);
    emit chipsChosen(std::min(anchor_, next), std::max(anchor_, next) + 1);
}

void TokenChips::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics metrics(font());
    const QColor base = palette().color(QPalette::Base);
    const QColor mid = palette().color(QPalette::Mid);
    const int first = firstVisibleRow();
    const int lastRow = std::min<int>(static_cast<int>(rows_.size()), first + kMaxRows);
    for (int row = first; row < lastRow; ++row) {
        const int end = row + 1 < static_cast<int>(rows_.size()) ? rows_[static_cast<std::size_t>(row) + 1].first
                                                                 : static_cast<int>(x_.size());
        for (int item = rows_[static_cast<std::size_t>(row)].first; item < end; ++item) {
            const QString text = itemText(item);
            if (item == 0) {  // the count, as plain text
                const QRect r(x_[0], (row - first) * rowHeight(), widths_[0], rowHeight() - kSpacing);
                painter.setPen(palette().color(QPalette::PlaceholderText));
                painter.drawText(r, Qt::AlignCenter, text);
                continue;
            }
            const int token = item - 1;
            const QRect r = chipRect(token);
            // A word outside the lexicon: a dashed chip in italics (the field says why).
            const bool marked = isMarked(token);
            const bool chosen = token >= highlightFirst_ && token < highlightEnd_;
            painter.setPen(QPen(chosen ? palette().color(QPalette::Highlight) : marked ? palette().color(QPalette::Text) : mid,
                                chosen ? 2 : 1, marked ? Qt::DashLine : Qt::SolidLine));
            // A tint of the selection over the field's ground: light on light palettes, dark on
            // dark ones, so Text stays readable on the chip (lighter() was near white on dark).
            const QColor h = palette().color(QPalette::Highlight);
            const QColor tint = QColor::fromRgbF(0.3f * h.redF() + 0.7f * base.redF(), 0.3f * h.greenF() + 0.7f * base.greenF(),
                                                 0.3f * h.blueF() + 0.7f * base.blueF());
            painter.setBrush(chosen ? tint : base);
            painter.drawRoundedRect(QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
            painter.setPen(palette().color(QPalette::Text));
            QFont chipFont = font();
            chipFont.setItalic(marked);
            painter.setFont(chipFont);
            const int room = r.width() - 2 * kHPad;
            const QString shown =
                metrics.horizontalAdvance(text) <= room + 2 ? text : metrics.elidedText(text, Qt::ElideRight, room);
            painter.drawText(r.adjusted(kHPad - 1, 0, -kHPad + 1, 0), Qt::AlignCenter, shown);
        }
    }
}

}  // namespace qkv::ui
