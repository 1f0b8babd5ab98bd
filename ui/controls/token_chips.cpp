#include "ui/controls/token_chips.hpp"

#include <QFontMetrics>
#include <QPainter>

#include <algorithm>

#include "ui/figures/shown_text.hpp"

namespace qkv::ui {
namespace {
constexpr int kHPad = 5, kVPad = 2, kSpacing = 3;
}

TokenChips::TokenChips(QWidget* parent) : QWidget(parent)
{
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
    QFont small = font();
    small.setPointSizeF(std::max(7.0, font().pointSizeF() * 0.9));
    setFont(small);
}

void TokenChips::setTokens(const QStringList& tokens, const std::vector<bool>& outside)
{
    if (tokens == tokens_ && outside == outside_) return;
    tokens_ = tokens;
    outside_ = outside;
    setToolTip(tokens_.isEmpty() ? QString() : plainAsRichText(tokens_.join(QStringLiteral(" · "))));
    updateGeometry();
    update();
}

QStringList TokenChips::shownTexts() const
{
    QStringList texts;
    texts << (tokens_.size() == 1 ? tr("1 token") : tr("%n tokens", nullptr, static_cast<int>(tokens_.size())));
    for (int i = 0; i < tokens_.size() && i < kMaxChips; ++i) texts << tokens_[i];
    if (tokens_.size() > kMaxChips) texts << tr("+%1 more").arg(tokens_.size() - kMaxChips);
    return texts;
}

int TokenChips::layoutChips(int width, QList<QRect>* rects) const
{
    const QFontMetrics metrics(font());
    const int chipHeight = metrics.height() + 2 * kVPad;
    int x = 0, y = 0;
    for (const QString& text : shownTexts()) {
        const int chipWidth = std::min(metrics.horizontalAdvance(text) + 2 * kHPad + 2, std::max(width, 20));
        if (x > 0 && x + chipWidth > width) {
            x = 0;
            y += chipHeight + kSpacing;
        }
        if (rects) rects->append(QRect(x, y, chipWidth, chipHeight));
        x += chipWidth + kSpacing;
    }
    return y + chipHeight;
}

int TokenChips::heightForWidth(int width) const { return layoutChips(width, nullptr); }

QSize TokenChips::sizeHint() const { return {240, heightForWidth(240)}; }

QSize TokenChips::minimumSizeHint() const { return {60, QFontMetrics(font()).height() + 2 * kVPad}; }

void TokenChips::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    QList<QRect> rects;
    layoutChips(width(), &rects);
    const QStringList texts = shownTexts();
    const QFontMetrics metrics(font());
    const QColor base = palette().color(QPalette::Base);
    const QColor mid = palette().color(QPalette::Mid);
    for (int i = 0; i < rects.size(); ++i) {
        const QRect r = rects[i];
        if (i == 0) {
            // The count, as plain text.
            painter.setPen(palette().color(QPalette::PlaceholderText));
            painter.drawText(r, Qt::AlignCenter, texts[i]);
            continue;
        }
        // A word outside the lexicon: a dashed chip in italics (the field says why).
        const bool marked = i - 1 < kMaxChips && isMarked(i - 1);
        painter.setPen(QPen(marked ? palette().color(QPalette::Text) : mid, 1, marked ? Qt::DashLine : Qt::SolidLine));
        painter.setBrush(base);
        painter.drawRoundedRect(QRectF(r).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
        painter.setPen(palette().color(QPalette::Text));
        QFont chipFont = font();
        chipFont.setItalic(marked);
        painter.setFont(chipFont);
        const int room = r.width() - 2 * kHPad;
        const QString shown = metrics.horizontalAdvance(texts[i]) <= room + 2
                                  ? texts[i]
                                  : metrics.elidedText(texts[i], Qt::ElideRight, room);
        painter.drawText(r.adjusted(kHPad - 1, 0, -kHPad + 1, 0), Qt::AlignCenter, shown);
    }
}

}  // namespace qkv::ui
