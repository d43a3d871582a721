import { inject, provide, type InjectionKey } from 'vue';

export interface ConfirmRequest {
    title: string;
    message: string;
    /** the confirming button's label, e.g. "Delete realm" */
    action: string;
    resolve(confirmed: boolean): void;
}

type Show = (request: ConfirmRequest) => void;
const CONFIRM: InjectionKey<Show> = Symbol('confirm');

export function provideConfirm(show: Show): void {
    provide(CONFIRM, show);
}

/** `await confirm({ title, message, action })` is true only when the person confirmed. */
export function useConfirm(): (request: Omit<ConfirmRequest, 'resolve'>) => Promise<boolean> {
    const show = inject(CONFIRM, null);
    return (request) => new Promise<boolean>((resolve) => {
        if (!show) resolve(false);
        else show({ ...request, resolve });
    });
}
