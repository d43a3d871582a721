import type { RouteRecordRaw } from 'vue-router';

/** Folders of a realm (/paths): list, create, a folder's page (rename, move, delete, what it holds). */
export const FOLDER_ROUTES: RouteRecordRaw[] = [
    { path: '/realms/:realm/folders', name: 'folders', component: () => import('./FolderList.vue'), meta: { permission: 'path_read' } },
    { path: '/realms/:realm/folders/new', name: 'folder-create', component: () => import('./FolderCreate.vue'), meta: { permission: 'path_create' } },
    { path: '/realms/:realm/folders/:id', name: 'folder', component: () => import('./FolderEdit.vue'), meta: { permission: 'path_read' } },
];
