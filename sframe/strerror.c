#include "sframe.h"

const char *sf_strerror(int err)
{
	switch (err) {
	case SF_OK:             return "success";
	case SF_E_INVAL:        return "invalid argument";
	case SF_E_FAULT:        return "section read faulted";
	case SF_E_SHORT:        return "section shorter than its header";
	case SF_E_MAGIC:        return "bad magic";
	case SF_E_ENDIAN:       return "section of the other byte order";
	case SF_E_VERSION:      return "unsupported version";
	case SF_E_ABI:          return "unknown ABI/arch";
	case SF_E_FLAGS:        return "undefined flags";
	case SF_E_HDR_BOUNDS:   return "sub-section outside the section";
	case SF_E_HDR_LAYOUT:   return "FDE array overlaps the FRE sub-section";
	case SF_E_FDE_INDEX:    return "FDE index out of range";
	case SF_E_FDE_TYPE:     return "bad FDE type";
	case SF_E_FDE_SIZE:     return "PC-mask block of size 0";
	case SF_E_FDE_UNSORTED: return "FDEs not sorted";
	case SF_E_FDE_OVERLAP:  return "functions overlap";
	case SF_E_FDE_RANGE:    return "function wraps around";
	case SF_E_FRE_BOUNDS:   return "FRE outside the FRE sub-section";
	case SF_E_FRE_INFO:     return "bad FRE info";
	case SF_E_FRE_ORDER:    return "FREs not increasing";
	case SF_E_FRE_OUTSIDE:  return "FRE outside its function";
	case SF_E_FRE_COUNT:    return "FRE counts inconsistent";
	case SF_E_NO_FDE:       return "no FDE for pc";
	case SF_E_NO_FRE:       return "no FRE for pc";
	case SF_E_RULE:         return "FRE is not a valid rule";
	case SF_E_REG:          return "rule needs an unknown register";
	case SF_E_SIGNAL:       return "signal frame";
	case SF_E_END:          return "outermost frame";
	case SF_E_STACK_READ:   return "stack read faulted";
	case SF_E_BAD_FRAME:    return "implausible frame";
	case SF_E_UNSUPPORTED:  return "not expressible in that version";
	case SF_E_NOSPACE:      return "output buffer too small";
	case SF_E_FDE_TEXT:     return "function outside the section's text";
	case SF_E_BUDGET:       return "lookup work allowance exhausted";
	case SF_E_NOT_QUICK:    return "not the quick lookup's case";
	}
	return "unknown error";
}
