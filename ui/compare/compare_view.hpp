#pragma once
// "Compare" tab: pin the live result, change something, and see for every
// head the difference pinned − live; or every head against the selected head of the live
// result. Attention weights or scaled scores. Shapes that no longer match give a message in
// place, never a crash. Differences are computed through a LatestTask (in the background for
// big layers); clicking a panel selects its head (and the cell under the mouse).

#include <memory>

#include "ui/compare/attention_difference.hpp"
#include "ui/compare/compare_figures.hpp"
#include "ui/views/model_view.hpp"

class QComboBox;
class QLabel;
class QPushButton;

namespace qkv::ui {

// The model is the difference of the two results.
class CompareView : public ModelView<AttentionDifference> {
    Q_OBJECT
public:
    explicit CompareView(HeadSelection* selection, QWidget* parent = nullptr);

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId = kCompareViewId;
    QString title() const override;
    QString summary() const override;
    QString id() const override { return kId; }

    // Keeps the live result to compare against (null: unpin).
    void pin();
    void unpin();
    const std::shared_ptr<const qkv::Result>& pinned() const { return pinned_; }
    void setMode(CompareMode mode);
    CompareMode mode() const { return mode_; }
    void setQuantity(CompareQuantity quantity);
    CompareQuantity quantity() const { return quantity_; }

    const ModelPointer& difference() const { return model(); }
    QPushButton* pinButton() const { return pinButton_; }
    CompareGeometry geometry() const;
    QString toolTipAt(const QPointF& position) const override;

protected:
    void refresh(Changes changes) override;
    void paintModel(QPainter& painter, const QRectF& rect) override;
    void clickAt(const QPointF& position) override;

private:
    // The tooltip of head `head`'s cell (query, key), HTML.
    QString cellTip(qkv::Index head, qkv::Index query, qkv::Index key) const;
    // Screen readers read the differences as a table (compare_view.cpp says which).
    void makeAccessibleTable();
    void recompute();
    void updatePinnedLabel();

    std::shared_ptr<const qkv::Result> pinned_;
    CompareMode mode_ = CompareMode::PinnedMinusLive;
    CompareQuantity quantity_ = CompareQuantity::Attention;
    QPushButton* pinButton_;
    QPushButton* unpinButton_;
    QLabel* pinnedLabel_;
    QComboBox* modeBox_;
    QComboBox* quantityBox_;
};

}  // namespace qkv::ui
