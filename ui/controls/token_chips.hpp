#pragma once
// The tokens of a sentence as small rounded chips that wrap, with the count: users see at once
// how the text is split (words and punctuation as separate tokens).

#include <QStringList>
#include <QWidget>

namespace qkv::ui {

class TokenChips : public QWidget {
    Q_OBJECT
public:
    explicit TokenChips(QWidget* parent = nullptr);

    void setTokens(const QStringList& tokens);
    const QStringList& tokens() const { return tokens_; }
    // Chips past this many are summarised as "+N more".
    static constexpr int kMaxChips = 48;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    // Lays the chips out in `width`, returning the height used (and the rects, when asked).
    int layoutChips(int width, QList<QRect>* rects) const;
    QStringList shownTexts() const;
    QStringList tokens_;
};

}  // namespace qkv::ui
