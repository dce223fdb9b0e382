/**
 * The acr of a login that passed one class of factor (DESIGN "acr claim"). login.yaml never declares it
 * (no request asks for it), yet its rules may name it: an eID upstream's `acr.performed` maps to it.
 */
export const ONE_FACTOR_ACR = "1fa";
