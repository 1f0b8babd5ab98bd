#pragma once
// The tokens of a sentence as small rounded chips that wrap, with the count: users see at once
// how the text is split (words and punctuation as separate tokens).

#include <QStringList>
#include <QWidget>

#include <vector>

namespace qkv::ui {

class TokenChips : public QWidget {
    Q_OBJECT
public:
    explicit TokenChips(QWidget* parent = nullptr);

    // `outside[i]`: token i is outside the lexicon (a dashed, italic chip); empty: none is.
    void setTokens(const QStringList& tokens, const std::vector<bool>& outside = {});
    const QStringList& tokens() const { return tokens_; }
    bool isMarked(int token) const
    {
        return token >= 0 && token < static_cast<int>(outside_.size()) && outside_[token];
    }
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
    std::vector<bool> outside_;
};

}  // namespace qkv::ui
