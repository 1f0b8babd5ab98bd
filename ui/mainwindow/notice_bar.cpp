#include "ui/mainwindow/notice_bar.hpp"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>

#include <algorithm>

#include "ui/mainwindow/strip_colors.hpp"

namespace qkv::ui {

NoticeBar::NoticeBar(QWidget* parent)
    : QFrame(parent), scroll_(new QScrollArea(this)), text_(new QLabel), dismiss_(new QToolButton(this))
{
    setObjectName(QStringLiteral("NoticeBar"));
    setAutoFillBackground(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 4, 4, 4);
    text_->setWordWrap(true);
    text_->setTextFormat(Qt::PlainText);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    text_->setAutoFillBackground(false);
    // A long message scrolls inside at most kMaxLines lines: it never pushes the views below their
    // minimum, which would make the window grow by itself.
    scroll_->setWidget(text_);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll_->viewport()->setAutoFillBackground(false);
    scroll_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    scroll_->setAccessibleName(tr("Message"));
    layout->addWidget(scroll_, 1);
    dismiss_->setText(QStringLiteral("✕"));
    dismiss_->setAutoRaise(true);
    dismiss_->setToolTip(tr("Dismiss"));
    dismiss_->setAccessibleName(tr("Dismiss the message"));
    layout->addWidget(dismiss_, 0, Qt::AlignTop);
    connect(dismiss_, &QToolButton::clicked, this, [this] { setMessage(QString()); });
    updateColors();
    hide();
}

void NoticeBar::setMessage(const QString& message)
{
    text_->setText(message);
    fitHeight();  // before it is shown: its first layout must not take the text's unwrapped height
    setVisible(!message.isEmpty());
}

void NoticeBar::fitHeight()
{
    // As tall as the text at the width it is shown at, up to kMaxLines lines, and down to one
    // line where the views need the room (the rest scrolls).
    const int line = text_->fontMetrics().lineSpacing();
    const int lines = line * kMaxLines + 2;
    const int bar = scroll_->verticalScrollBar()->sizeHint().width();
    // Not laid out yet (hidden): the width it will have, that of the views' column less the button.
    const int shown = isVisible() || !parentWidget() ? scroll_->width()
                                                     : parentWidget()->width() - dismiss_->sizeHint().width() - 16;
    const int width = std::max(shown - bar, 50);
    const int wanted = std::min(text_->heightForWidth(width), lines);
    scroll_->setMinimumHeight(std::min(wanted, line + 2));
    scroll_->setMaximumHeight(wanted);
}

void NoticeBar::resizeEvent(QResizeEvent* event)
{
    QFrame::resizeEvent(event);
    fitHeight();
}

QString NoticeBar::message() const { return isHidden() ? QString() : text_->text(); }

void NoticeBar::changeEvent(QEvent* event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) updateColors();
    if (event->type() == QEvent::FontChange) fitHeight();
}

void NoticeBar::updateColors()
{
    // A pale blue strip: information, not a warning.
    applyStripColors(*this, {QColor(0xe3, 0xef, 0xfb), QColor(0x12, 0x2b, 0x45)}, {QColor(0x1d, 0x3a, 0x55), QColor(0xe3, 0xef, 0xfb)});
}

}  // namespace qkv::ui
