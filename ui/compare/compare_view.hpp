#pragma once
// "Compare" tab (issue 8, section 5): pin the live result, change something, and see for every
// head the difference pinned − live; or every head against the selected head of the live
// result. Attention weights or scaled scores. Shapes that no longer match give a message in
// place, never a crash. Differences are computed through a LatestTask (in the background for
// big layers); clicking a panel selects its head (and the cell under the mouse).

#include <memory>

#include "ui/compare/attention_difference.hpp"
#include "ui/compare/compare_figures.hpp"
#include "ui/views/latest_task.hpp"
#include "ui/views/result_view.hpp"

class QComboBox;
class QLabel;
class QPushButton;

namespace qkv::ui {

class FigureCanvas;
class HeadSelection;

class CompareView : public ResultView {
    Q_OBJECT
public:
    explicit CompareView(HeadSelection* selection, QWidget* parent = nullptr);
    ~CompareView() override;

    // The tab a session names and its figures' view (ResultView::id()).
    static constexpr QLatin1String kId{"compare"};
    QString title() const override;
    QString id() const override { return kId; }

    // Keeps the live result to compare against (null: unpin).
    void pin();
    void unpin();
    const std::shared_ptr<const qkv::Result>& pinned() const { return pinned_; }
    void setMode(CompareMode mode);
    CompareMode mode() const { return mode_; }
    void setQuantity(CompareQuantity quantity);
    CompareQuantity quantity() const { return quantity_; }

    const std::shared_ptr<const AttentionDifference>& difference() const { return difference_; }
    FigureCanvas* canvas() const { return canvas_; }
    QPushButton* pinButton() const { return pinButton_; }
    CompareGeometry geometry() const;
    QString toolTipAt(const QPointF& position) const;
    bool isBusy() const { return task_.isBusy(); }

    static constexpr double kAsynchronousWork = 2e6;

signals:
    void differenceReady();

protected:
    void refresh(Changes changes) override;

private:
    void recompute();
    void showDifference(std::shared_ptr<const AttentionDifference> difference);
    void clickAt(const QPointF& position);
    void updatePinnedLabel();

    std::shared_ptr<const qkv::Result> pinned_;
    CompareMode mode_ = CompareMode::PinnedMinusLive;
    CompareQuantity quantity_ = CompareQuantity::Attention;
    std::shared_ptr<const AttentionDifference> difference_;
    QPushButton* pinButton_;
    QPushButton* unpinButton_;
    QLabel* pinnedLabel_;
    QComboBox* modeBox_;
    QComboBox* quantityBox_;
    FigureCanvas* canvas_;
    LatestTask<std::shared_ptr<const AttentionDifference>> task_;
};

}  // namespace qkv::ui
