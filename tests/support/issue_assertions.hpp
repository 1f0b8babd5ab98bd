#pragma once
// Whether validation named a problem at the right field: one of `issues` belongs to `field` and
// its message contains `fragment`.

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/config/validation.hpp"

namespace qkv::testing {

inline bool mentions(const std::vector<ValidationIssue>& issues, ConfigField field, std::string_view fragment)
{
    return std::any_of(issues.begin(), issues.end(), [&](const ValidationIssue& issue) {
        return issue.field == field && issue.message.find(fragment) != std::string::npos;
    });
}

}  // namespace qkv::testing
