/* spirv_validate.c — SPIRV-Tools' validator on one module (spirv.h). */
#include <spirv-tools/libspirv.h>
#include <stdio.h>

#include "cook/process/spirv.h"

static bool validate_with(spv_context context, const uint32_t *words, size_t word_count,
                          bool scalar_layout, char *reason, size_t reason_size) {
    spv_validator_options options = spvValidatorOptionsCreate();
    if (options == NULL) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    if (scalar_layout)
        spvValidatorOptionsSetScalarBlockLayout(options, true);
    struct spv_const_binary_t binary = {words, word_count};
    spv_diagnostic diagnostic = NULL;
    spv_result_t result = spvValidateWithOptions(context, options, &binary, &diagnostic);
    if (result != SPV_SUCCESS)
        snprintf(reason, reason_size, "SPIR-V validation failed: %s",
                 diagnostic && diagnostic->error ? diagnostic->error : "invalid module");
    spvDiagnosticDestroy(diagnostic);
    spvValidatorOptionsDestroy(options);
    return result == SPV_SUCCESS;
}

bool spirv_validate(const uint32_t *words, size_t word_count, uint32_t target, char *reason,
                    size_t reason_size) {
    static const spv_target_env envs[KILN_SHADER_TARGET_COUNT_] = {
        SPV_ENV_VULKAN_1_0, SPV_ENV_VULKAN_1_1, SPV_ENV_VULKAN_1_2, SPV_ENV_VULKAN_1_3};
    if (target >= KILN_SHADER_TARGET_COUNT_) {
        snprintf(reason, reason_size, "unknown target %u", target);
        return false;
    }
    spv_context context = spvContextCreate(envs[target]);
    if (context == NULL) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    bool ok = validate_with(context, words, word_count, false, reason, reason_size);
    if (!ok) {
        char scalar_reason[8];
        ok = validate_with(context, words, word_count, true, scalar_reason, sizeof scalar_reason);
    }
    spvContextDestroy(context);
    return ok;
}
