#include "ehframe.h"

const char *eh_strerror(int err)
{
	switch (err) {
	case EH_OK:                return "success";
	case EH_E_INVAL:           return "invalid argument";
	case EH_E_FAULT:           return "section read faulted";
	case EH_E_TRUNCATED:       return "field past the end of its entry";
	case EH_E_LEB:             return "LEB128 number truncated or too wide";
	case EH_E_PTR_ENC:         return "unsupported pointer encoding";
	case EH_E_HDR_VERSION:     return "unsupported .eh_frame_hdr version";
	case EH_E_HDR_NO_TABLE:    return ".eh_frame_hdr has no search table";
	case EH_E_HDR_TABLE_ENC:   return "search table entries not of fixed size";
	case EH_E_HDR_TABLE_SIZE:  return "search table past the end of .eh_frame_hdr";
	case EH_E_HDR_FRAME_PTR:   return "eh_frame_ptr does not name .eh_frame";
	case EH_E_HDR_UNSORTED:    return "search table not sorted";
	case EH_E_HDR_FDE_ADDR:    return "search table entry outside .eh_frame";
	case EH_E_HDR_MISMATCH:    return "search table entry and its FDE disagree";
	case EH_E_LENGTH:          return "entry length past the end of .eh_frame";
	case EH_E_LENGTH64:        return "64-bit entry length unsupported";
	case EH_E_TERMINATOR:      return "terminator where an FDE was expected";
	case EH_E_NOT_FDE:         return "CIE where an FDE was expected";
	case EH_E_CIE_POINTER:     return "CIE pointer outside .eh_frame";
	case EH_E_NOT_CIE:         return "CIE pointer does not lead to a CIE";
	case EH_E_CIE_VERSION:     return "unsupported CIE version";
	case EH_E_AUGMENTATION:    return "unknown augmentation";
	case EH_E_AUG_LENGTH:      return "augmentation data past the end of its entry";
	case EH_E_CODE_ALIGN:      return "code alignment factor 0";
	case EH_E_FDE_RANGE:       return "FDE address range wraps around";
	case EH_E_END:             return "end of .eh_frame";
	case EH_E_NO_FDE:          return "no FDE for pc";
	case EH_E_UNSUPPORTED:     return "unsupported CFA instruction";
	case EH_E_EXPRESSION:      return "CFA, RA or rbp given by a DWARF expression";
	case EH_E_STATE_OVERFLOW:  return "remember_state nested too deep";
	case EH_E_STATE_UNDERFLOW: return "restore_state without remember_state";
	case EH_E_ADVANCE:         return "advance past the end of the FDE";
	case EH_E_CIE_ADVANCE:     return "advance in a CIE";
	case EH_E_BUDGET:          return "instruction budget exhausted";
	case EH_E_NO_CFA:          return "no CFA register rule";
	case EH_E_OVERFLOW:        return "offset overflows 64 bits";
	case EH_E_NOT_EXPRESSIBLE: return "rule not expressible as struct sf_rule";
	case EH_E_FULL:            return "no room for more rows";
	case EH_E_RA_COLUMN:       return "return-address column not the ABI's";
	}
	return "unknown error";
}
