#pragma once
// The status bar's summary of what is on screen: n_q, n_k, d_model, h, d_k and compute time,
// plus whether a computation is running, a file is being read or the configuration is invalid.

#include <QLabel>

#include <memory>

#include "core/pipeline/compute.hpp"

namespace qkv::ui {

class StatusSummary : public QLabel {
    Q_OBJECT
public:
    explicit StatusSummary(QWidget* parent = nullptr);

    void setResult(std::shared_ptr<const qkv::Result> result);
    void setBusy(bool busy);     // a computation runs
    void setLoading(bool loading);  // a file is being read
    // A model's blocks read so far and in all, while it is read (0, 0: none is).
    void setModelLoad(qkv::Index done, qkv::Index total);
    // A long layer's query rows computed so far and in all (h n_q), while it computes (0, 0:
    // none is).
    void setComputeProgress(qkv::Index done, qkv::Index total);
    void setInvalid(bool invalid);
    void setError(const QString& error);

private:
    void refresh();
    std::shared_ptr<const qkv::Result> result_;
    bool busy_ = false, loading_ = false, invalid_ = false;
    qkv::Index modelDone_ = 0, modelTotal_ = 0;
    qkv::Index computeDone_ = 0, computeTotal_ = 0;
    QString error_;
};

}  // namespace qkv::ui
