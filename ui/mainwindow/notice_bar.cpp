#include "ui/mainwindow/notice_bar.hpp"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

#include "ui/mainwindow/strip_colors.hpp"

namespace qkv::ui {

NoticeBar::NoticeBar(QWidget* parent) : QFrame(parent), text_(new QLabel(this)), dismiss_(new QToolButton(this))
{
    setObjectName(QStringLiteral("NoticeBar"));
    setAutoFillBackground(true);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 4, 4, 4);
    text_->setWordWrap(true);
    text_->setTextFormat(Qt::PlainText);
    text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(text_, 1);
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
    setVisible(!message.isEmpty());
}

QString NoticeBar::message() const { return isHidden() ? QString() : text_->text(); }

void NoticeBar::changeEvent(QEvent* event)
{
    QFrame::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) updateColors();
}

void NoticeBar::updateColors()
{
    // A pale blue strip: information, not a warning.
    applyStripColors(*this, {QColor(0xe3, 0xef, 0xfb), QColor(0x12, 0x2b, 0x45)}, {QColor(0x1d, 0x3a, 0x55), QColor(0xe3, 0xef, 0xfb)});
}

}  // namespace qkv::ui
